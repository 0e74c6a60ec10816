// Maintenance forms: an index form's index-type select offers only the
// types the chosen column's type takes (data-index-types on each column
// option). The server refuses a mismatch with the same rule, so this is a
// convenience, not the check.
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
  }

  function init() {
    document.querySelectorAll("select[data-index-column]").forEach(update);
  }
  document.addEventListener("change", function (ev) {
    if (ev.target.matches && ev.target.matches("select[data-index-column]")) update(ev.target);
  });
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
  else init();
})();
