"""Korean full-text search for the built site, made by the build itself (Pagefind).

Why Pagefind and not Sphinx's own index: Sphinx has no Korean search language, so its index
holds "강도는" and "강도에" as separate words and a search for "강도" misses them. Pagefind
matches every query word as a *prefix* of the indexed words, which is what Korean needs
(a noun followed by its particle: 강도 -> 강도는, 강도에, 강도로), ranks with BM25 over the
page text only (not the sidebar), and ships as a PyPI wheel with its binary
(``pagefind[extended]``), so the one build command produces the index offline.

At ``build-finished`` every page of the book is read from the output folder, cleaned in
memory (headings' "#" links, display math, code cells and the child-page lists are left
out; inline TeX becomes plain text) and indexed; the bundle is written to ``pagefind/`` in
the output folder, so ``--path-output`` works too. ``search.html`` (template in
``_ext/templates``) runs the search with ``_ext/static/xpu-search.js`` and lists the results as
links with snippets. The API reference page is indexed with a low weight, so a chapter that
explains a term ranks above the docstring that names it.
"""
from __future__ import annotations

import pathlib
import re
import shutil
import subprocess
import sys
import tempfile

from sphinx.application import Sphinx
from sphinx.util import logging

logger = logging.getLogger(__name__)

ROOT_SELECTOR = "article.bd-article"
EXCLUDE = [".headerlink", "div.math", ".cell_input", ".toctree-wrapper", ".prev-next-area", "nav",
           "script", "style", "summary", ".copybtn", ".xpu-search-skip"]
LOW_WEIGHT_PAGES = {"book/appendix/api.html": "0.2"}

_INLINE_MATH = re.compile(r'<span class="math notranslate nohighlight">\\\((.*?)\\\)</span>', re.S)
_TEX = [(re.compile(p), r) for p, r in [
    (r"\\(?:mathrm|text|mathit|mathbf|operatorname)\s*\{([^{}]*)\}", r"\1"),
    (r"\\frac\s*\{([^{}]*)\}\s*\{([^{}]*)\}", r"\1/\2"),
    (r"\\times", "×"), (r"\\cdot", "·"), (r"\\approx", "≈"), (r"\\le(?:q)?\b", "≤"), (r"\\ge(?:q)?\b", "≥"),
    (r"\\to\b", "→"), (r"\\infty", "∞"), (r"\\,|\\;|\\!|~", " "), (r"\\left|\\right", ""),
    (r"\\([A-Za-z]+)", r"\1"), (r"[{}]", ""), (r"\s+", " "),
]]


def tex_to_text(tex: str) -> str:
    """Plain-text reading of a short inline TeX expression (for search snippets, not for display)."""
    for pattern, repl in _TEX:
        tex = pattern.sub(repl, tex)
    return tex.strip()


def prepare(page_html: str, rel: str) -> str:
    """The page as the index should see it: inline math as text, low weight for reference pages."""
    page_html = _INLINE_MATH.sub(lambda m: tex_to_text(m.group(1)), page_html)
    weight = LOW_WEIGHT_PAGES.get(rel)
    if weight:
        page_html = page_html.replace('<article class="bd-article"', f'<article class="bd-article" data-pagefind-weight="{weight}"', 1)
    return page_html


def pages_to_index(outdir: pathlib.Path) -> list[pathlib.Path]:
    return sorted(p for sub in ("book", "labs") for p in (outdir / sub).rglob("*.html"))


def build_index(outdir: pathlib.Path) -> int:
    """Index the book's pages of a built site into ``outdir/pagefind``; returns the number of pages.

    The pages are prepared (see :func:`prepare`) into a temporary copy and indexed by the
    Pagefind command line (the Python API of pagefind 1.5.2 truncates the WASM file it writes).
    """
    target = outdir / "pagefind"
    if target.exists():
        shutil.rmtree(target)  # no stale index chunks from an earlier build
    pages = pages_to_index(outdir)
    with tempfile.TemporaryDirectory(prefix="xpu-pagefind-") as tmp:
        for path in pages:
            rel = path.relative_to(outdir).as_posix()
            dst = pathlib.Path(tmp) / rel
            dst.parent.mkdir(parents=True, exist_ok=True)
            dst.write_text(prepare(path.read_text(encoding="utf-8"), rel), encoding="utf-8")
        cmd = [sys.executable, "-m", "pagefind", "--site", tmp, "--output-path", str(target),
               "--root-selector", ROOT_SELECTOR, "--force-language", "ko", "--quiet"]
        for sel in EXCLUDE:
            cmd += ["--exclude-selectors", sel]
        done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0 or not (target / "pagefind.js").is_file():
        raise RuntimeError(f"Pagefind failed ({done.returncode}): {done.stderr.strip() or done.stdout.strip()}\n"
                           "Is pagefind[extended] installed (requirements.txt)?")
    return len(pages)


def _build_index(app: Sphinx, exception: Exception | None) -> None:
    if exception is not None or app.builder.format != "html" or app.builder.name != "html":
        return
    outdir = pathlib.Path(app.outdir)
    n = build_index(outdir)
    logger.info(f"[xpu_search] Korean search index: {n} pages -> {outdir / 'pagefind'}")


def setup(app: Sphinx) -> dict:
    app.connect("build-finished", _build_index, priority=800)  # after the HTML is final (xpu_reader: 400)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
