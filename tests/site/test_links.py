"""No broken internal link or anchor in the built site."""
from __future__ import annotations

import html.parser
import pathlib
import re
from urllib.parse import unquote, urlparse

from _site import SITE, require_site

BOOK_PDF = "xpu-book.pdf"  # written into the site by tools/build-pdf (CI does); the site links it before it exists


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
            if target.name == BOOK_PDF and target.parent == SITE.resolve() and not target.exists():
                continue  # the whole-book PDF at the site root, not printed in this build
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
