// Maintenance forms: an index form's index-type select offers only the
// types the chosen column's type takes (data-index-types on each column
// option), and a field that applies only to some values of another
// (data-only-field, data-only-values: the FTS options) shows only then,
// disabled otherwise so it is not sent. The server refuses both mistakes
// with the same rules, so this is a convenience, not the check.
(function () {
  "use strict";

  function update(col) {
    var form = col.form;
    var kind = form && form.querySelector('select[name="index_type"]');
    if (!kind) return;
    var opt = col.options[col.selectedIndex];
    var allowed = opt ? (opt.getAttribute("data-index-types") || "").split(" ") : [];
    var firstAllowed = null;
    Array.prototype.forEach.call(kind.options, function (o) {
      var ok = o.value === "" || allowed.indexOf(o.value) >= 0;
      o.disabled = !ok;
      o.hidden = !ok;
      if (ok && o.value !== "" && firstAllowed === null) firstAllowed = o;
    });
    var cur = kind.options[kind.selectedIndex];
    if ((!cur || cur.disabled || cur.value === "") && firstAllowed) firstAllowed.selected = true;
    conditions(form);
  }

  function conditions(form) {
    form.querySelectorAll("[data-only-field]").forEach(function (field) {
      var name = field.getAttribute("data-only-field");
      if (!name) return;
      var other = form.querySelector('[name="' + name + '"]');
      var on = !!other && (field.getAttribute("data-only-values") || "").split(" ").indexOf(other.value) >= 0;
      field.hidden = !on;
      field.querySelectorAll("input, select, textarea").forEach(function (el) { el.disabled = !on; });
    });
  }

  function init() {
    document.querySelectorAll("select[data-index-column]").forEach(update);
    document.querySelectorAll("form").forEach(function (f) { if (f.querySelector("[data-only-field]")) conditions(f); });
  }
  document.addEventListener("change", function (ev) {
    if (!ev.target.matches) return;
    if (ev.target.matches("select[data-index-column]")) update(ev.target);
    else if (ev.target.form) conditions(ev.target.form);
  });
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
  else init();
})();
