"""What the site tests share: where the built site is, its pages, and a page loader for the browser tests.

Needs the built site (``jupyter-book build .``; another folder with XPU_SITE_DIR, see tests/_toc.py) and Debian's
Chromium. Without them the tests skip, unless XPU_REQUIRE_SITE=1 (as in .ci/run), which turns the skip into a failure.
A page must not use the network: every request that is not to the local server is blocked and reported.
"""
from __future__ import annotations

import contextlib
import re
import shutil
from urllib.parse import urlparse

from _toc import ROOT, SITE, require_site, toc_files, unavailable  # noqa: F401 (SITE and the skip rule live in _toc)

PAGES = [f"{entry}.html" for entry in toc_files()]
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
ARTIFACTS = ROOT / ".ci" / "artifacts" / "screenshots"
HANGUL = re.compile(r"[\uac00-\ud7a3]")


class PageLog:
    """Console errors, failed requests and blocked (non-local) requests of one page load."""

    def __init__(self):
        self.console_errors: list[str] = []
        self.failed: list[str] = []
        self.external: list[str] = []


class Browser:
    """The served site in one Chromium: ``open(path, width)`` loads a page in a fresh context."""

    def __init__(self, chromium, base_url: str):
        self.chromium, self.base_url = chromium, base_url

    @contextlib.contextmanager
    def open(self, path: str, width: int = 1280):
        """Yields (page, log) once the page has loaded and MathJax has typeset it; closes the context after."""
        ctx = self.chromium.new_context(viewport={"width": width, "height": 900})
        try:
            page = ctx.new_page()
            log = PageLog()
            host = urlparse(self.base_url).netloc

            def route(r):
                if urlparse(r.request.url).netloc in (host, "") or r.request.url.startswith("data:"):
                    r.continue_()
                else:
                    log.external.append(r.request.url)
                    r.abort()

            page.route("**/*", route)
            page.on("console", lambda m: log.console_errors.append(m.text) if m.type == "error" else None)
            page.on("pageerror", lambda e: log.console_errors.append(str(e)))
            page.on("requestfailed", lambda r: log.failed.append(r.url) if urlparse(r.url).netloc == host else None)
            page.on("response", lambda r: log.failed.append(f"{r.status} {r.url}") if r.status >= 400 else None)
            page.goto(f"{self.base_url}/{path}", wait_until="load")
            # MathJax 3 typesets asynchronously; wait for it when the page has math.
            page.wait_for_function(
                "() => !document.querySelector('.math') || (window.MathJax && MathJax.startup && MathJax.startup.promise"
                " && (MathJax.startup.promise.then(() => window.__mj = 1), window.__mj))", timeout=20000)
            yield page, log
        finally:
            ctx.close()


UI_ATTRS = "['title','aria-label','placeholder','data-tooltip','alt']"
# Attribute values that are names, not UI text (a product, a file name).
NOT_UI_TEXT = re.compile(r"^(GitHub|Open In Colab|xpucalc.*|[\w.-]+\.(py|md|ipynb|pdf)|Ctrl|K|#)$")


def ui_strings_korean(page) -> list[str]:
    """Every tooltip, aria label, placeholder and alt text a reader meets is Korean (after the scripts ran)."""
    page.wait_for_timeout(300)
    values = page.evaluate(f"""() => [...document.querySelectorAll('*')].flatMap(e =>
        {UI_ATTRS}.map(a => e.getAttribute(a)).filter(v => v && v.trim()))""")
    problems = []
    english = sorted({v for v in values if not HANGUL.search(v) and not NOT_UI_TEXT.match(v.strip())})
    if english:
        problems.append(f"UI strings not in Korean: {english}")
    footer = page.inner_text("footer") if page.query_selector("footer") else ""
    if "Copyright" in footer or "By " in footer:
        problems.append(f"footer: {footer!r}")
    if "Search this book" in page.content():
        problems.append("'Search this book' left in the page")
    return problems
