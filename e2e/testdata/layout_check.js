// Measures the page the journey is on: its width against the viewport, and
// the WCAG contrast ratio of every visible text against the background it is
// painted on. Returns a JSON string the Go test reads.
(() => {
  const parse = (c) => {
    const m = c.match(/rgba?\(([^)]+)\)/);
    if (!m) return [0, 0, 0, 0];
    const p = m[1].split(/[ ,\/]+/).filter(Boolean).map(Number);
    return [p[0], p[1], p[2], p.length > 3 ? p[3] : 1];
  };
  const over = (top, below) => {
    const a = top[3];
    return [0, 1, 2].map((i) => top[i] * a + below[i] * (1 - a)).concat(1);
  };
  const lum = (c) => {
    const ch = c.slice(0, 3).map((v) => {
      v /= 255;
      return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4);
    });
    return 0.2126 * ch[0] + 0.7152 * ch[1] + 0.0722 * ch[2];
  };
  const ratio = (a, b) => {
    const [hi, lo] = [lum(a), lum(b)].sort((x, y) => y - x);
    return (hi + 0.05) / (lo + 0.05);
  };
  // The background an element is painted on: its own, composed over its
  // ancestors' down to the canvas (the root's, else white or black).
  const canvas = parse(getComputedStyle(document.documentElement).backgroundColor)[3] > 0
    ? parse(getComputedStyle(document.documentElement).backgroundColor)
    : (matchMedia('(prefers-color-scheme: dark)').matches ? [18, 18, 18, 1] : [255, 255, 255, 1]);
  const bgOf = (el) => {
    const layers = [];
    for (let e = el; e && e.nodeType === 1; e = e.parentElement) {
      const c = parse(getComputedStyle(e).backgroundColor);
      if (c[3] > 0) layers.push(c);
      if (c[3] >= 1) break;
    }
    let bg = canvas;
    for (let i = layers.length - 1; i >= 0; i--) bg = over(layers[i], bg);
    return bg;
  };
  // Inactive controls are exempt from WCAG contrast (1.4.3), as are hidden
  // and screen-reader-only texts and SVG drawings.
  const exempt = (el) => el.closest('[disabled], :disabled, .sr-only, svg, option, .card.disabled, [aria-hidden="true"]');
  const fails = [];
  const badges = [];
  for (const el of document.body.querySelectorAll('*')) {
    const own = [...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim() !== '');
    if (el.classList.contains('badge')) badges.push(el.className + (el.dataset.state ? ' [' + el.dataset.state + ']' : ''));
    if (!own || exempt(el) || el.getClientRects().length === 0) continue;
    const st = getComputedStyle(el);
    if (st.visibility === 'hidden' || st.display === 'none') continue;
    const fg = parse(st.color);
    const bg = bgOf(el);
    const r = ratio(over(fg, bg), bg);
    if (r < 4.5) {
      fails.push(`${el.tagName.toLowerCase()}.${[...el.classList].join('.')} "${el.textContent.trim().slice(0, 40)}" ${r.toFixed(2)}:1 (${st.color} on rgb(${bg.slice(0, 3).map(Math.round).join(',')}))`);
    }
  }
  // The outermost elements that stick out past the viewport, to say what
  // makes a page too wide.
  const wide = [];
  for (const el of document.body.querySelectorAll('*')) {
    if (el.getBoundingClientRect().right > window.innerWidth + 1 && !(el.parentElement && el.parentElement.getBoundingClientRect().right > window.innerWidth + 1)) {
      wide.push(`${el.tagName.toLowerCase()}.${[...el.classList].join('.')}[${el.dataset.testid || ''}] right=${Math.round(el.getBoundingClientRect().right)}`);
    }
  }
  // A header over a numeric column (cells of class num) aligns right too.
  const misaligned = [];
  for (const table of document.querySelectorAll('table')) {
    const heads = table.querySelectorAll('thead tr:first-child th');
    heads.forEach((th, i) => {
      const cells = [...table.querySelectorAll('tbody tr')].map((tr) => tr.children[i]).filter(Boolean);
      if (cells.length > 0 && cells.every((td) => td.classList.contains('num'))) {
        const a = getComputedStyle(th).textAlign;
        if (a !== 'right' && a !== 'end') misaligned.push(th.textContent.trim());
      }
    });
  }
  // A blank band: a bar across the page (the top bar, or the side bar once
  // a phone stacks it above the content) stretched far past what it holds,
  // as a grid row given a short page's spare height is.
  const bands = [];
  for (const el of document.querySelectorAll('.topbar, .sidebar, .shell > *, body > main')) {
    if (el.getClientRects().length === 0) continue;
    const st = getComputedStyle(el);
    const box = el.getBoundingClientRect();
    let top = Infinity;
    let bottom = -Infinity;
    for (const c of el.children) {
      const r = c.getBoundingClientRect();
      if (r.height === 0 && r.width === 0) continue;
      top = Math.min(top, r.top);
      bottom = Math.max(bottom, r.bottom);
    }
    const content = bottom > top ? bottom - top : 0;
    const spare = box.height - content - parseFloat(st.paddingTop) - parseFloat(st.paddingBottom) - parseFloat(st.borderTopWidth) - parseFloat(st.borderBottomWidth);
    // main may fill the rest of the screen (that is the page's own
    // background), and so may a side bar beside it; a bar across the
    // page must not.
    const across = box.width >= window.innerWidth * 0.9;
    if (el.tagName !== 'MAIN' && across && spare > 24) bands.push(`${el.tagName.toLowerCase()}.${[...el.classList].join('.')} is ${Math.round(spare)} px taller than its content`);
  }
  const doc = document.documentElement;
  return JSON.stringify({ scrollWidth: doc.scrollWidth, innerWidth: window.innerWidth, fails, badges, misaligned, bands, wide: wide.slice(0, 8),
    dark: matchMedia('(prefers-color-scheme: dark)').matches });
})()
