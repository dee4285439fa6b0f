"""Table text is readable in the light and the dark colour mode (WCAG contrast ≥ 4.5:1 in every cell).

The pydata theme keeps the reader's choice in localStorage ("mode", "theme") and sets
``html[data-theme=...]`` from it before the page paints; the test does the same and reloads. For every
``th``/``td`` with text, the cell's computed text colour is compared with its effective background: the
first ancestor (the cell included) whose background is not transparent, with any half-transparent layers
above it composited on top. The minimum of each mode is printed (``pytest -s``) and in the failure message.
"""
from __future__ import annotations

import pytest

# The pages with the biggest tables: hand-written pipe tables (theme stripes), xpucalc's HTML tables, a lab.
PAGES = [
    "book/week05/measurements.html",
    "labs/01_pytorch_lab.html",
    "book/week05/comparison-table.html",
    "book/llm-hardware/precision-quantization.html",
]
MODES = ["light", "dark"]
MIN_RATIO = 4.5

# Per cell: text colour, the stack of backgrounds from the cell up to the first opaque one, and a label.
CELLS_JS = r"""() => {
  const parse = (c) => {
    const m = c.match(/rgba?\(([^)]+)\)/);
    if (!m) return null;
    const p = m[1].split(/[ ,\/]+/).filter(Boolean).map(Number);
    return [p[0], p[1], p[2], p.length > 3 ? p[3] : 1];
  };
  const over = (top, bottom) => {            // composite top (with alpha) over an opaque bottom
    const a = top[3];
    return [0, 1, 2].map(i => top[i] * a + bottom[i] * (1 - a)).concat([1]);
  };
  const effectiveBg = (el) => {
    const layers = [];
    for (let e = el; e; e = e.parentElement) {
      const c = parse(getComputedStyle(e).backgroundColor);
      if (c && c[3] > 0) { layers.push(c); if (c[3] >= 1) break; }
    }
    let bg = [255, 255, 255, 1];             // the canvas, if nothing is opaque
    if (layers.length && layers[layers.length - 1][3] >= 1) bg = layers.pop();
    while (layers.length) bg = over(layers.pop(), bg);
    return bg;
  };
  const lum = (c) => {
    const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); };
    return 0.2126 * f(c[0]) + 0.7152 * f(c[1]) + 0.0722 * f(c[2]);
  };
  const out = [];
  for (const cell of document.querySelectorAll('article th, article td')) {
    if (!cell.innerText.trim() || !cell.getClientRects().length) continue;
    const bg = effectiveBg(cell);
    // the cell's own text, and that of any element inside it that sets its own colour (links, code)
    const texts = [cell, ...cell.querySelectorAll('a, code, span, strong, em, p')]
      .filter(e => e === cell || [...e.childNodes].some(n => n.nodeType === 3 && n.textContent.trim()));
    let worst = null;
    for (const t of texts) {
      let fg = parse(getComputedStyle(t).color);
      if (!fg) continue;
      const tbg = t === cell ? bg : effectiveBg(t);
      if (fg[3] < 1) fg = over(fg, tbg);
      const l1 = lum(fg), l2 = lum(tbg);
      const ratio = (Math.max(l1, l2) + 0.05) / (Math.min(l1, l2) + 0.05);
      if (!worst || ratio < worst.ratio) worst = {ratio, fg: fg.slice(0, 3).map(Math.round), bg: tbg.slice(0, 3).map(Math.round)};
    }
    if (worst) out.push({...worst, text: cell.innerText.trim().slice(0, 40),
                         table: (cell.closest('table').className || '') + ' ' + (cell.closest('[class*=xpucalc]') ? 'xpucalc' : '')});
  }
  return out;
}"""


def set_mode(page, mode: str) -> None:
    """Choose the colour mode as the theme's switch does (it stores it; every page reads it), then reload."""
    page.evaluate("m => { localStorage.setItem('mode', m); localStorage.setItem('theme', m); }", mode)
    page.reload(wait_until="load")
    page.wait_for_function("m => document.documentElement.dataset.theme === m", arg=mode, timeout=10000)
    page.wait_for_timeout(200)  # let the theme's transition settle


RESULTS: dict[str, float] = {}


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("path", PAGES)
def test_table_text_contrast(browser, path, mode):
    with browser.open(path) as (page, _log):
        set_mode(page, mode)
        cells = page.evaluate(CELLS_JS)
    assert len(cells) >= 20, f"{path}: only {len(cells)} table cells found"
    low = [c for c in cells if c["ratio"] < MIN_RATIO]
    worst = min(c["ratio"] for c in cells)
    RESULTS[f"{mode} {path}"] = worst
    print(f"\n[contrast] {mode:5} {path}: {len(cells)} cells, minimum {worst:.2f}:1")
    assert not low, (f"{path} in {mode} mode: {len(low)} of {len(cells)} cells below {MIN_RATIO}:1 "
                     f"(minimum {worst:.2f}:1), e.g. " + "; ".join(
                         f"{c['text']!r} {c['fg']} on {c['bg']} = {c['ratio']:.2f} [{c['table'].strip()}]"
                         for c in sorted(low, key=lambda c: c["ratio"])[:4]))


def test_mode_carries_across_pages(browser):
    """Dark mode chosen on one page is the mode of the next page (the theme stores it), and it is readable there."""
    with browser.open(PAGES[0]) as (page, _log):
        set_mode(page, "dark")
        page.goto(f"{browser.base_url}/{PAGES[1]}", wait_until="load")
        assert page.evaluate("document.documentElement.dataset.theme") == "dark"
