"""Charts and diagrams are legible on a phone: at a 390 px viewport, every figure's smallest text is >= 9 CSS px
and no two labels of a chart overlap.

Every page is opened at 390 px. For each ``<img>`` in the article the browser gives its shown and natural widths;
the text size comes from the image file:

- a chart (PNG) carries, in its PNG text chunks, the size of its smallest text in image pixels and its
  overlapping label pairs, written by ``xpucalc.render.plot.figure_png`` when the page ran
  (``setup_korean_font()`` shows every matplotlib figure that way); shown text = that size x shown / natural;
- a Graphviz diagram (SVG file) gives its smallest text at its natural size
  (``xpucalc.render.dot.natural_text_px``); shown text = that size x shown / natural.

SVG drawn inline in the page is measured in the browser: each ``<text>``'s computed font size times the scale
of its screen transform. The smallest text of every page is printed (``pytest -s``) and named in a failure.
"""
from __future__ import annotations

import pathlib
import posixpath
from urllib.parse import unquote, urlparse

import pytest
from _site import PAGES, SITE

from xpucalc.render.dot import natural_text_px
from xpucalc.render.plot import MIN_SCREEN_PX, PNG_KEY_OVERLAPS, PNG_KEY_TEXT_PX

PHONE = 390

FIGURES_JS = r"""() => {
  const imgs = [...document.querySelectorAll('article img')]
    .filter(i => !i.closest('a.reference.external') && !/badge/.test(i.getAttribute('src') || ''))
    .map(i => ({src: i.getAttribute('src'), natural: i.naturalWidth, shown: i.getBoundingClientRect().width}));
  const svgs = [...document.querySelectorAll('article svg')].map(svg => {
    let smallest = null;
    for (const t of svg.querySelectorAll('text')) {
      if (!t.textContent.trim()) continue;
      const m = t.getScreenCTM();
      const px = parseFloat(getComputedStyle(t).fontSize) * (m ? Math.hypot(m.a, m.b) : 1);
      smallest = smallest === null ? px : Math.min(smallest, px);
    }
    return smallest;
  }).filter(v => v !== null);
  return {imgs, svgs};
}"""


def image_file(page: str, src: str) -> pathlib.Path:
    """The built file an ``<img src>`` of ``page`` (a path under the site) points to."""
    rel = posixpath.normpath(posixpath.join(posixpath.dirname(page), unquote(urlparse(src).path)))
    return SITE / rel


def shown_text_px(path: pathlib.Path, natural: float, shown: float) -> tuple[float, str]:
    """(smallest text in CSS px as shown, overlapping labels or "") of one figure file shown ``shown`` px wide."""
    if natural <= 0:
        raise ValueError(f"{path.name}: the image did not load (natural width 0)")
    scale = shown / natural
    if path.suffix == ".svg":
        return natural_text_px(path.read_text(encoding="utf-8")) * scale, ""
    from PIL import Image

    with Image.open(path) as img:
        text = dict(getattr(img, "text", {}))
    if PNG_KEY_TEXT_PX not in text:
        raise ValueError(f"{path.name}: no {PNG_KEY_TEXT_PX!r} in the PNG: the figure was not drawn through "
                         "xpucalc.render.plot (call setup_korean_font() before plotting, then rebuild)")
    return float(text[PNG_KEY_TEXT_PX]) * scale, text.get(PNG_KEY_OVERLAPS, "")


@pytest.mark.parametrize("page", PAGES)
def test_figures_are_legible_on_a_phone(browser, page):
    with browser.open(page, PHONE) as (pg, _log):
        found = pg.evaluate(FIGURES_JS)
    problems, sizes = [], []
    for img in found["imgs"]:
        path = image_file(page, img["src"])
        try:
            px, overlaps = shown_text_px(path, img["natural"], img["shown"])
        except (ValueError, OSError) as e:
            problems.append(str(e))
            continue
        sizes.append(px)
        if px < MIN_SCREEN_PX:
            problems.append(f"{path.name}: smallest text {px:.1f} px at {PHONE} px (shown {img['shown']:.0f} of "
                            f"{img['natural']} px)")
        if overlaps:
            problems.append(f"{path.name}: overlapping labels {overlaps}")
    for px in found["svgs"]:
        sizes.append(px)
        if px < MIN_SCREEN_PX:
            problems.append(f"inline SVG: smallest text {px:.1f} px at {PHONE} px")
    if sizes:
        print(f"{page}: {len(sizes)} figures, smallest text {min(sizes):.1f} px at {PHONE} px")
    assert not problems, f"{page}: " + "; ".join(problems)
