// Job type settings: show a field only while the field it depends on has
// the value its descriptor names (visible_when). The server renders the
// same initial state and ignores hidden fields when validating, so this is
// a convenience, not a rule.
(function () {
  "use strict";

  function truthy(v) {
    return ["true", "on", "1", "yes"].indexOf(String(v).toLowerCase()) >= 0;
  }
  function same(a, b) {
    if (a === b) return true;
    var bools = ["true", "false", "on", "off", "1", "0", "yes", "no", ""];
    if (bools.indexOf(String(a).toLowerCase()) >= 0 && bools.indexOf(String(b).toLowerCase()) >= 0) {
      return truthy(a) === truthy(b);
    }
    return false;
  }
  function valueOf(form, name) {
    var els = form.querySelectorAll('[name="' + name + '"]');
    var v = "";
    els.forEach(function (el) {
      if (el.type === "checkbox") { if (el.checked) v = el.value; else if (v === "") v = "false"; }
      else if (el.type === "radio") { if (el.checked) v = el.value; }
      else if (el.type === "hidden" && els.length > 1) { if (v === "") v = el.value; }
      else v = el.value;
    });
    return v;
  }
  function update(form) {
    form.querySelectorAll("[data-visible-when]").forEach(function (el) {
      var dep = el.getAttribute("data-visible-when");
      if (!dep) return;
      el.hidden = !same(valueOf(form, dep), el.getAttribute("data-visible-equals") || "");
    });
  }
  function all() {
    document.querySelectorAll("form[data-visible-form]").forEach(update);
  }
  document.addEventListener("change", function (ev) {
    var form = ev.target.closest && ev.target.closest("form[data-visible-form]");
    if (form) update(form);
  });
  document.addEventListener("input", function (ev) {
    var form = ev.target.closest && ev.target.closest("form[data-visible-form]");
    if (form) update(form);
  });
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", all);
  else all();
})();
