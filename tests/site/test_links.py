"""No broken internal link or anchor in the built site."""
from __future__ import annotations

import html.parser
import pathlib
import re
from urllib.parse import unquote, urlparse

from _site import ROOT, SITE, require_site

BOOK_PDF = "xpu-book.pdf"  # written into the site by tools/build-pdf (CI does); linked only where it exists


class _Collector(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.links: list[str] = []
        self.ids: set[str] = set()

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if a.get("id"):
            self.ids.add(a["id"])
        if tag == "a" and a.get("name"):
            self.ids.add(a["name"])
        for key in ("href", "src"):
            if a.get(key) and tag in ("a", "img", "script", "link"):
                self.links.append(a[key])


def _parse(path: pathlib.Path) -> _Collector:
    c = _Collector()
    c.feed(path.read_text(encoding="utf-8", errors="replace"))
    return c


def test_no_broken_internal_links():
    require_site()
    pages = [p for p in SITE.rglob("*.html") if "_static" not in p.parts]
    parsed = {p: _parse(p) for p in pages}
    broken = []
    for page, c in parsed.items():
        for link in c.links:
            u = urlparse(link)
            if u.scheme or link.startswith(("//", "mailto:", "javascript:", "data:")):
                continue  # external: listed on the references page, not fetched here
            target = page if not u.path else (page.parent / unquote(u.path)).resolve()
            if target.is_dir():
                target = target / "index.html"
            if not target.exists():
                broken.append(f"{page.relative_to(SITE)} -> {link}")
                continue
            if u.fragment and target.suffix == ".html":
                ids = parsed[target].ids if target in parsed else _parse(target).ids
                if unquote(u.fragment) not in ids:
                    broken.append(f"{page.relative_to(SITE)} -> {link} (no anchor)")
    assert not broken, "\n".join(broken[:50])


def test_external_links_are_listed_on_the_references_page():
    """Every outside address a page links to is on the references page (with its date); Colab launches excepted."""
    require_site()
    listed = set(re.findall(r'href="(https?://[^"]+)"', (SITE / "book/appendix/references.html").read_text(encoding="utf-8")))
    unlisted = []
    for page in SITE.rglob("*.html"):
        if "_static" in page.parts:
            continue
        for url in re.findall(r'<a class="reference external" href="(https?://[^"]+)"', page.read_text(encoding="utf-8")):
            if url not in listed and not url.startswith("https://colab.research.google.com/github/"):
                unlisted.append(f"{page.relative_to(SITE)}: {url}")
    assert not unlisted, "\n".join(unlisted)


def _pdf_links(page: str) -> list[str]:
    return re.findall(r'<a [^>]*href="((?:\.\./)*' + re.escape(BOOK_PDF) + r')"', page)


def test_book_pdf_linked_only_where_it_exists():
    """A site built with the README's command alone has no PDF and no link to it; with the PDF, menu and intro link it.

    The site's own state is checked, then the other state on a copy of two pages (``_ext/xpu_reader.link_book_pdf``,
    which the build runs and which can be run again after tools/build-pdf)."""
    require_site()
    import shutil
    import sys
    import tempfile

    sys.path.insert(0, str(ROOT / "_ext"))
    from xpu_reader import link_book_pdf

    def state(site: pathlib.Path) -> tuple[int, int, bool]:
        intro = (site / "book/intro.html").read_text(encoding="utf-8")
        linked = sum(len(_pdf_links(p.read_text(encoding="utf-8"))) for p in site.rglob("*.html") if "_static" not in p.parts)
        return linked, len(_pdf_links(intro)), 'class="xpu-book-pdf-item" hidden' in intro

    present = (SITE / BOOK_PDF).is_file()
    linked, intro_links, hidden = state(SITE)
    if present:
        assert intro_links == 2 and not hidden, "the PDF exists but the intro does not link it (menu and text)"
    else:
        assert linked == 0, f"{linked} links to {BOOK_PDF}, which this site does not have"
        assert hidden, "the intro's sentence about the PDF is shown without a PDF to download"
    with tempfile.TemporaryDirectory() as tmp:
        copy = pathlib.Path(tmp)
        for rel in ("book/intro.html", "book/week05/measurements.html"):
            (copy / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(SITE / rel, copy / rel)
        (copy / BOOK_PDF).write_bytes(b"%PDF-1.7\n")
        assert link_book_pdf(copy)
        assert state(copy) == (3, 2, False), state(copy)  # intro: menu and text; measurements: menu
        assert all(h == "../" + BOOK_PDF for h in _pdf_links((copy / "book/intro.html").read_text(encoding="utf-8")))
        (copy / BOOK_PDF).unlink()
        assert not link_book_pdf(copy)
        assert state(copy) == (0, 0, True), state(copy)
