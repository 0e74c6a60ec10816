// Schema builder of the Iceberg create-table page: "Remove" drops its row.
// Rows are added by htmx (the "Add column" button fetches a row fragment);
// the server validates whatever rows are submitted.
(function () {
  "use strict";
  document.addEventListener("click", function (ev) {
    var btn = ev.target.closest("[data-remove-row]");
    if (!btn) return;
    var row = btn.closest("tr");
    if (row) row.remove();
  });
})();
