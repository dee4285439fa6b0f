"""What a reader sees: every page of the built site opened in headless Chromium.

Needs the built site (``jupyter-book build .``) and Debian's Chromium. Without
them the tests skip, unless XPU_REQUIRE_SITE=1 (as in .ci/run), which turns the
skip into a failure. The page must not use the network: every request that is
not to the local server is blocked and reported.
"""
from __future__ import annotations

import functools
import http.server
import os
import pathlib
import re
import shutil
import threading
from urllib.parse import urlparse

import pytest
from _toc import ROOT, toc_files

SITE = ROOT / "_build" / "html"
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
ARTIFACTS = ROOT / ".ci" / "artifacts" / "screenshots"
REQUIRE = os.environ.get("XPU_REQUIRE_SITE") == "1"
HANGUL = re.compile(r"[\uac00-\ud7a3]")
PAGES = [f"{entry}.html" for entry in toc_files()]
SCREENSHOT_PAGES = {"book/intro.html", "book/week05/common-example.html", "book/week05/worked-example-1.html",
                    "book/week05/hardware.html", "labs/01_pytorch_lab.html"}


def _unavailable(reason: str):
    if REQUIRE:
        pytest.fail(reason)
    pytest.skip(reason)


@pytest.fixture(scope="module")
def base_url():
    if not (SITE / "index.html").is_file():
        _unavailable("the site is not built (run `jupyter-book build .` first)")
    handler = functools.partial(_QuietHandler, directory=str(SITE))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):  # keep pytest output clean
        pass


@pytest.fixture(scope="module")
def browser():
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _unavailable("playwright is not installed")
    if not pathlib.Path(CHROMIUM).is_file():
        _unavailable("Debian's chromium is not installed (apt-get install chromium)")
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=[
            "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
            "--disable-component-update", "--disable-sync"])
        yield b
        b.close()


class PageLog:
    """Console errors, failed requests and blocked (non-local) requests of one page load."""

    def __init__(self):
        self.console_errors: list[str] = []
        self.failed: list[str] = []
        self.external: list[str] = []


def open_page(browser, base_url: str, path: str, width: int = 1280):
    ctx = browser.new_context(viewport={"width": width, "height": 900})
    page = ctx.new_page()
    log = PageLog()
    host = urlparse(base_url).netloc

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
    page.goto(f"{base_url}/{path}", wait_until="load")
    # MathJax 3 typesets asynchronously; wait for it when the page has math.
    page.wait_for_function("() => !document.querySelector('.math') || (window.MathJax && MathJax.startup"
                           " && MathJax.startup.promise && (MathJax.startup.promise.then(() => window.__mj = 1), window.__mj))",
                           timeout=20000)
    return ctx, page, log


@pytest.mark.parametrize("path", PAGES)
def test_page_renders_offline(browser, base_url, path):
    assert (SITE / path).is_file(), f"{path} was not built"
    ctx, page, log = open_page(browser, base_url, path)
    try:
        assert not log.external, f"page used the network: {log.external}"
        assert not log.console_errors, f"console errors: {log.console_errors}"
        assert not log.failed, f"failed requests: {log.failed}"
        main = page.inner_text("main") if page.query_selector("main") else page.inner_text("body")
        assert len(HANGUL.findall(main)) > 50, "the page shows little or no Korean text"
        n_math = page.eval_on_selector_all(".math", "els => els.length")
        n_typeset = page.eval_on_selector_all("mjx-container", "els => els.length")
        assert n_typeset >= n_math, f"{n_math} math elements, {n_typeset} typeset"
        assert "\\(" not in main and "\\[" not in main, "raw LaTeX left on the page"
        broken = page.eval_on_selector_all("img", "els => els.filter(i => !(i.complete && i.naturalWidth > 0))"
                                                  ".map(i => i.src)")
        assert not broken, f"images missing: {broken}"
        if path in SCREENSHOT_PAGES:
            ARTIFACTS.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(ARTIFACTS / (path.replace("/", "_") + ".png")), full_page=True)
    finally:
        ctx.close()


@pytest.mark.parametrize("path", PAGES)
def test_page_fits_a_phone(browser, base_url, path):
    ctx, page, log = open_page(browser, base_url, path, width=390)
    try:
        wide = page.evaluate("() => document.documentElement.scrollWidth")
        assert wide <= 391, f"the page is {wide}px wide at a 390px viewport: something does not scroll in its box"
    finally:
        ctx.close()


def _dropdown_pages() -> list[str]:
    if not SITE.is_dir():
        return []
    # answers hidden by sphinx-design (<details class="sd-dropdown">) or sphinx-togglebutton ("dropdown" admonitions)
    def hides(html: str) -> bool:
        for m in re.finditer(r'class="([^"]*)"', html):
            classes = set(m.group(1).split())
            if "sd-dropdown" in classes or {"dropdown", "toggle"} <= classes or {"dropdown", "admonition"} <= classes:
                return True
        return False

    return [p for p in PAGES if (SITE / p).is_file() and hides((SITE / p).read_text(encoding="utf-8"))]


@pytest.mark.parametrize("path", _dropdown_pages() or ["(none)"])
def test_hidden_answers_stay_hidden_until_clicked(browser, base_url, path):
    if path == "(none)":
        _unavailable("no page with hidden answers in the built site")
    ctx, page, _ = open_page(browser, base_url, path)
    try:
        # sphinx-design dropdowns are <details class="sd-dropdown">; "dropdown" admonitions and exercise
        # solutions are collapsed by sphinx-togglebutton, which adds "toggle-hidden" and a button.
        details = page.query_selector_all("details.sd-dropdown")
        toggles = page.query_selector_all(".admonition.dropdown")
        assert details or toggles, "no hidden answer found"
        for d in details:
            assert d.get_attribute("open") is None, "a <details> answer is open before any click"
            assert not d.query_selector(".sd-summary-content").is_visible(), "a <details> answer is visible"
        for t in toggles:
            assert "toggle-hidden" in (t.get_attribute("class") or ""), "a dropdown answer is expanded before any click"
        if toggles:
            t = toggles[0]
            body = t.query_selector(":scope > :not(.admonition-title)")
            assert body is None or not body.is_visible(), "a dropdown answer's body is visible before any click"
            t.query_selector(".toggle-button, .admonition-title").click()
            page.wait_for_timeout(400)
            assert "toggle-hidden" not in (t.get_attribute("class") or ""), "clicking did not open the answer"
            assert body is None or body.is_visible(), "the answer's body stays hidden after the click"
        if details:
            d = details[0]
            d.query_selector("summary").click()
            page.wait_for_timeout(200)
            assert d.get_attribute("open") is not None, "clicking did not open the answer"
            assert d.query_selector(".sd-summary-content").is_visible()
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        opened = toggles[0] if toggles else details[0]
        opened.screenshot(path=str(ARTIFACTS / (path.replace("/", "_") + ".opened.png")))
    finally:
        ctx.close()
