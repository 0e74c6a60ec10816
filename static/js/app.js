// floe console behaviour that htmx does not cover: copy buttons, dialogs and
// confirmations. Everything is wired by data- attributes; no inline handlers,
// so the strict CSP (script-src 'self') holds.
(function () {
  "use strict";

  // copyText writes to the clipboard, falling back to a hidden textarea and
  // execCommand where the async clipboard is unavailable (plain http hosts).
  function copyText(text) {
    if (navigator.clipboard && window.isSecureContext) {
      return navigator.clipboard.writeText(text).catch(function () { return legacyCopy(text); });
    }
    return legacyCopy(text);
  }
  function legacyCopy(text) {
    return new Promise(function (resolve, reject) {
      var ta = document.createElement("textarea");
      ta.value = text;
      ta.setAttribute("readonly", "");
      ta.className = "offscreen";
      ta.style.position = "fixed"; // CSSOM writes are allowed under style-src 'self'
      ta.style.left = "-9999px";
      document.body.appendChild(ta);
      ta.select();
      var ok;
      try { ok = document.execCommand("copy"); } catch (e) { ok = false; }
      document.body.removeChild(ta);
      ok ? resolve() : reject(new Error("copy refused"));
    });
  }

  document.addEventListener("click", function (ev) {
    var btn = ev.target.closest("[data-copy-target]");
    if (btn) {
      var src = document.getElementById(btn.getAttribute("data-copy-target"));
      if (!src) return;
      var label = btn.getAttribute("data-label") || btn.textContent;
      btn.setAttribute("data-label", label);
      copyText(src.textContent).then(function () {
        btn.textContent = "Copied";
        btn.setAttribute("data-copied", "true");
      }, function () {
        btn.textContent = "Press Ctrl+C";
        var range = document.createRange();
        range.selectNodeContents(src);
        var sel = window.getSelection();
        sel.removeAllRanges();
        sel.addRange(range);
      });
      return;
    }
    var opener = ev.target.closest("[data-open-dialog]");
    if (opener) {
      var dlg = document.getElementById(opener.getAttribute("data-open-dialog"));
      if (dlg && !dlg.open) dlg.showModal();
      var first = dlg && dlg.querySelector("[autofocus], input:not([type=hidden]):not([disabled])");
      if (first) first.focus();
      return;
    }
    var closer = ev.target.closest("[data-close-dialog]");
    if (closer) {
      var d = closer.closest("dialog");
      if (d) d.close();
    }
  });

  // A live panel (htmx's ws extension) says whether its socket is open, so
  // a reader, and a journey, can tell a live panel from one still
  // connecting.
  document.addEventListener("htmx:wsOpen", function (ev) { ev.target.setAttribute("data-live", "open"); });
  document.addEventListener("htmx:wsClose", function (ev) { ev.target.setAttribute("data-live", "closed"); });

  // Forms marked data-confirm ask once; data-confirm-again asks a second time
  // (used where a cascade deletes data). The server checks its own rules too.
  document.addEventListener("submit", function (ev) {
    var form = ev.target;
    var first = form.getAttribute("data-confirm");
    if (!first) return;
    if (!window.confirm(first)) { ev.preventDefault(); return; }
    var again = form.getAttribute("data-confirm-again");
    var cascade = form.querySelector("input[name=cascade]");
    if (again && (!cascade || cascade.checked) && !window.confirm(again)) ev.preventDefault();
  }, true);
})();
