// Forms built from form.Field (job-type settings, Maintenance task forms):
// one behaviour for both.
//  - A field wrapper with data-visible-when (the name of another input) and
//    data-visible-equals (space-separated values) shows only while that
//    input has one of the values (booleans by meaning); while hidden, its
//    inputs are disabled, so the browser does not send them. The server
//    renders the same initial state and refuses a value sent for a hidden
//    field, so this script is what keeps a form sendable, not the check.
//  - A select with data-narrows (the name of another select) narrows that
//    select's choices to the chosen option's data-narrows-to values (an
//    index form's column to the index types its type takes).
(function () {
  "use strict";

  var bools = ["true", "false", "on", "off", "1", "0", "yes", "no"];
  function truthy(v) {
    return ["true", "on", "1", "yes"].indexOf(String(v).toLowerCase()) >= 0;
  }
  function same(a, b) {
    if (a === b) return true;
    if (bools.indexOf(String(a).toLowerCase()) >= 0 && bools.indexOf(String(b).toLowerCase()) >= 0) {
      return truthy(a) === truthy(b);
    }
    return false;
  }
  // valueOf reads an input as the form would send it: a checkbox is its
  // value when checked, else the hidden "false" beside it.
  function valueOf(form, name) {
    var v = "";
    var checkbox = false;
    form.querySelectorAll('[name="' + CSS.escape(name) + '"]').forEach(function (el) {
      if (el.type === "checkbox") { checkbox = true; if (el.checked) v = el.value; }
      else if (el.type === "radio") { if (el.checked) v = el.value; }
      else if (el.type === "hidden") { if (v === "") v = el.value; }
      else v = el.value;
    });
    if (checkbox && v === "") v = "false";
    return v;
  }
  function visibility(form) {
    form.querySelectorAll("[data-visible-when]").forEach(function (field) {
      var dep = field.getAttribute("data-visible-when");
      if (!dep) return;
      var have = valueOf(form, dep);
      var on = (field.getAttribute("data-visible-equals") || "").split(" ").some(function (w) { return same(have, w); });
      field.hidden = !on;
      field.querySelectorAll("input, select, textarea").forEach(function (el) {
        if (!el.hasAttribute("data-keep-disabled")) el.disabled = !on;
      });
    });
  }
  function narrow(sel) {
    var target = sel.form && sel.form.querySelector('select[name="' + CSS.escape(sel.getAttribute("data-narrows")) + '"]');
    if (!target) return;
    var opt = sel.options[sel.selectedIndex];
    var to = opt ? (opt.getAttribute("data-narrows-to") || "") : "";
    var allowed = to === "" ? null : to.split(" ");
    var first = null;
    Array.prototype.forEach.call(target.options, function (o) {
      var ok = o.value === "" || allowed === null || allowed.indexOf(o.value) >= 0;
      o.disabled = !ok;
      o.hidden = !ok;
      if (ok && o.value !== "" && first === null) first = o;
    });
    var cur = target.options[target.selectedIndex];
    if ((!cur || cur.disabled || cur.value === "") && first) first.selected = true;
  }
  function update(form) {
    form.querySelectorAll("select[data-narrows]").forEach(function (sel) {
      if (sel.getAttribute("data-narrows")) narrow(sel);
    });
    visibility(form);
  }
  function init() {
    document.querySelectorAll("form").forEach(function (f) {
      if (f.querySelector("[data-visible-when], select[data-narrows]")) update(f);
    });
  }
  function changed(ev) {
    var form = ev.target && ev.target.form;
    if (form) update(form);
  }
  document.addEventListener("change", changed);
  document.addEventListener("input", changed);
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
  else init();
})();
