// The search box (views/search.templ): "/" anywhere but in a field focuses
// it, Escape clears its results, and a click outside closes them. htmx
// fetches the results themselves as the user types.
(function () {
  "use strict";

  function editable(el) {
    if (!el) return false;
    var tag = el.tagName;
    return tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT" || el.isContentEditable;
  }

  function results() { return document.getElementById("search-results"); }

  document.addEventListener("keydown", function (ev) {
    var box = document.getElementById("search");
    if (!box) return;
    if (ev.key === "/" && !ev.ctrlKey && !ev.metaKey && !ev.altKey && !editable(ev.target)) {
      ev.preventDefault();
      box.focus();
      box.select();
      return;
    }
    if (ev.key === "Escape" && (ev.target === box || (results() && results().contains(ev.target)))) {
      var r = results();
      if (r) r.replaceChildren();
      box.focus();
    }
  });

  document.addEventListener("click", function (ev) {
    var form = ev.target.closest && ev.target.closest("form.search");
    var r = results();
    if (!form && r) r.replaceChildren();
  });
})();
