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

Sections and aliases:

* Each heading takes its section's id in the indexed copy (Sphinx puts the id on ``<section>``),
  so Pagefind returns section-level sub-results whose URL ends in that anchor; the search page
  links each result to its best-matching section and passes the query words (``?hl=``) that
  ``xpu-site.js`` marks on the page.
* The course's terms (``book/terms.yml``: term, English term, aliases, teaching page, anchor) are
  written to ``pagefind/xpu-terms.json``. The search page expands a query that names a term
  ("루프라인", "올리듀스는", "텐서 코어") into the spellings the chapters use and lists the term's
  teaching page first. Every page carries a Pagefind filter ``page:<path>`` for that.
* Sphinx's own search index (``searchindex.js``, about 500 KB, with ``searchtools.js``) is not used
  by this search page; the theme loads it in every page's ``<head>``, and the build removes it there.
"""
from __future__ import annotations

import json
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


# a section, the empty targets of its other labels, its heading: the heading takes the section's (first) id
_SECTION_HEADING = re.compile(r'<section\b([^>]*?)\sid="([^"]+)"([^>]*)>(\s*(?:<span id="[^"]*"></span>\s*)*)<h([1-6])\b')


def prepare(page_html: str, rel: str) -> str:
    """The page as the index should see it: inline math as text, headings with their section's id (so Pagefind
    finds sections), a ``page`` filter with the page's path, low weight for reference pages."""
    page_html = _INLINE_MATH.sub(lambda m: tex_to_text(m.group(1)), page_html)
    page_html = _SECTION_HEADING.sub(lambda m: f'<section{m.group(1)}{m.group(3)}>{m.group(4)}<h{m.group(5)} id="{m.group(2)}"',
                                     page_html)
    weight = LOW_WEIGHT_PAGES.get(rel)
    attrs = f' data-pagefind-filter="page:{rel}"' + (f' data-pagefind-weight="{weight}"' if weight else "")
    page_html = page_html.replace('<article class="bd-article"', f'<article class="bd-article"{attrs}', 1)
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


TERMS_FILE = "book/terms.yml"
TERMS_JSON = "xpu-terms.json"  # written into the Pagefind folder, read by xpu-search.js
_TITLE = re.compile(r"<title>(.*?)(?: &#8212;.*?)?</title>", re.S)


def load_terms(srcdir: pathlib.Path, outdir: pathlib.Path,
               docs: set[str] | None = None) -> tuple[list[dict], list[str]]:
    """The search's view of ``book/terms.yml``: (entries, problems).

    Each entry: term, en, aliases (aliases and retired spellings: a reader may type either), page (the built
    page's path), anchor (or ""), title (the page's title). An entry whose page or anchor is not in the built
    site is a problem, not an entry. ``docs`` (the build's documents) leaves out, silently, entries whose page
    this build does not include (a build of one week with ``--toc``).
    """
    import yaml

    path = srcdir / TERMS_FILE
    if not path.is_file():
        return [], []
    entries, problems = [], []
    for i, e in enumerate(yaml.safe_load(path.read_text(encoding="utf-8")) or []):
        term = str(e.get("term") or "").strip()
        page = str(e.get("page") or "").strip()
        if not term or not page:
            problems.append(f"{TERMS_FILE} entry {i + 1}: needs a term and a page")
            continue
        if docs is not None and page not in docs:
            continue
        html = outdir / f"{page}.html"
        if not html.is_file():
            problems.append(f"{TERMS_FILE} {term!r}: page {page!r} is not in the built site")
            continue
        text = html.read_text(encoding="utf-8")
        anchor = str(e.get("anchor") or "").strip().lstrip("#")
        if anchor and f'id="{anchor}"' not in text:
            problems.append(f"{TERMS_FILE} {term!r}: {page} has no section id {anchor!r}")
            anchor = ""
        title = _TITLE.search(text)
        spellings = [str(a) for a in (e.get("aliases") or []) + (e.get("retired") or [])]
        entries.append({"term": term, "en": str(e.get("en") or ""), "aliases": spellings, "page": f"{page}.html",
                        "anchor": anchor, "title": re.sub(r"<[^>]+>", "", title.group(1)).strip() if title else term})
    return entries, problems


_SPHINX_SEARCH = re.compile(r'\s*<script src="(?:\.\./)*(?:_static/searchtools\.js|_static/language_data\.js|searchindex\.js)">'
                            r'</script>')


def drop_sphinx_search(outdir: pathlib.Path) -> int:
    """Remove Sphinx's search index and its scripts from every page's ``<head>`` (unused: search is Pagefind).

    Returns the number of pages changed. The theme (pydata-sphinx-theme) loads them for a search-as-you-type
    box this site does not use, and ``sphinx_highlight.js`` highlights nothing while ``searchtools.js`` is there.
    """
    changed = 0
    for path in outdir.rglob("*.html"):
        if "_static" in path.parts or "pagefind" in path.parts:
            continue
        text = path.read_text(encoding="utf-8")
        new = _SPHINX_SEARCH.sub("", text)
        if new != text:
            path.write_text(new, encoding="utf-8")
            changed += 1
    return changed


def _build_index(app: Sphinx, exception: Exception | None) -> None:
    if exception is not None or app.builder.format != "html" or app.builder.name != "html":
        return
    outdir = pathlib.Path(app.outdir)
    drop_sphinx_search(outdir)
    n = build_index(outdir)
    entries, problems = load_terms(pathlib.Path(app.srcdir), outdir, set(app.env.found_docs))
    for problem in problems:
        logger.warning(f"[xpu_search] {problem}")
    (outdir / "pagefind" / TERMS_JSON).write_text(json.dumps(entries, ensure_ascii=False, indent=1), encoding="utf-8")
    logger.info(f"[xpu_search] Korean search index: {n} pages, {len(entries)} terms -> {outdir / 'pagefind'}")


def setup(app: Sphinx) -> dict:
    app.connect("build-finished", _build_index, priority=800)  # after the HTML is final (xpu_reader: 400)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
