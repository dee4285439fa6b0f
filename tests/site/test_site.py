"""What a reader sees: every page of the built site opened in headless Chromium.

Needs the built site (``jupyter-book build .``; another folder with XPU_SITE_DIR) and Debian's Chromium. Without
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

# The built site: $XPU_SITE_DIR (e.g. a `--path-output` build's _build/html), else the repository's _build/html.
SITE = pathlib.Path(os.environ.get("XPU_SITE_DIR") or ROOT / "_build" / "html")
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


# The innermost elements of <main> that reach past the viewport's right edge, for the failure message.
WIDE_ELEMENTS_JS = """() => [...document.querySelectorAll('main *')]
    .filter(e => !e.closest('.bd-sidebar-secondary') && e.getBoundingClientRect().right > 391 && ![...e.children].some(
        c => c.getBoundingClientRect().right > 391))
    .slice(0, 5).map(e => `${e.tagName}.${e.className}: ${(e.textContent || '').trim().slice(0, 60)}`)"""


@pytest.mark.parametrize("path", PAGES)
def test_page_fits_a_phone(browser, base_url, path):
    ctx, page, log = open_page(browser, base_url, path, width=390)
    try:
        # Measure once fonts are in and layout has settled: a busy CI machine can catch the theme mid-transition.
        page.evaluate("() => document.fonts.ready")
        wide = page.evaluate("() => document.documentElement.scrollWidth")
        if wide > 391:
            page.wait_for_timeout(1000)
            wide = page.evaluate("() => document.documentElement.scrollWidth")
        culprits = page.evaluate(WIDE_ELEMENTS_JS) if wide > 391 else []
        assert wide <= 391, (f"the page is {wide}px wide at a 390px viewport: something does not scroll in its box:"
                             f" {culprits}")
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



# ---------------------------------------------------------------- navigation on every screen width
NAV_PAGE = "book/week05/measurements.html"


@pytest.mark.parametrize("width", [390, 900, 1280])
def test_sidebar_and_page_toc_open_and_close(browser, base_url, width):
    """The table of contents and the in-page TOC can be opened and closed by clicking, at phone to laptop widths."""
    ctx, page, log = open_page(browser, base_url, NAV_PAGE, width=width)
    try:
        for kind, dialog_id in (("primary", "pst-primary-sidebar-modal"), ("secondary", "pst-secondary-sidebar-modal")):
            sidebar = page.query_selector(f"#pst-{kind}-sidebar")
            buttons = [b for b in page.query_selector_all(f".{kind}-toggle") if b.is_visible()]
            if not buttons:
                # no button: the sidebar must then be on screen already (the in-page TOC at 1280 px)
                assert sidebar.is_visible(), f"{kind} sidebar has neither a visible button nor a visible sidebar at {width}px"
                continue
            was_visible = sidebar.is_visible()
            buttons[0].click()
            page.wait_for_timeout(400)
            dialog_open = page.evaluate(f"() => document.getElementById('{dialog_id}').open")
            if was_visible:  # wide screen: the button collapses the sidebar and brings it back
                assert not sidebar.is_visible(), f"clicking the {kind} button did not hide the sidebar at {width}px"
                buttons[0].click()
                page.wait_for_timeout(400)
                assert sidebar.is_visible(), f"a second click did not bring the {kind} sidebar back at {width}px"
            else:  # narrow screen: the button opens the sidebar as a dialog with its links
                assert dialog_open, f"clicking the {kind} button opened nothing at {width}px"
                links = page.eval_on_selector_all(f"#{dialog_id} a", "els => els.filter(a => a.offsetParent).length")
                assert links >= 3, f"the opened {kind} sidebar shows {links} links at {width}px"
                if width == 390 and kind == "primary":
                    ARTIFACTS.mkdir(parents=True, exist_ok=True)
                    page.screenshot(path=str(ARTIFACTS / f"nav-open-{width}.png"))
                page.keyboard.press("Escape")
                page.wait_for_timeout(300)
                assert not page.evaluate(f"() => document.getElementById('{dialog_id}').open"), \
                    f"Escape did not close the {kind} sidebar at {width}px"
        assert not log.console_errors, f"console errors: {log.console_errors}"
        assert not log.external, f"page used the network: {log.external}"
    finally:
        ctx.close()


# ---------------------------------------------------------------- Korean UI strings
UI_ATTRS = "['title','aria-label','placeholder','data-tooltip','alt']"
# Attribute values that are names, not UI text (a product, a file name).
NOT_UI_TEXT = re.compile(r"^(GitHub|Open In Colab|xpucalc.*|[\w.-]+\.(py|md|ipynb|pdf)|Ctrl|K|#)$")


@pytest.mark.parametrize("path", ["book/intro.html", NAV_PAGE, "labs/00_analytic_check.html", "search.html?q=강도",
                                  "book/appendix/status.html"])
def test_ui_strings_are_korean(browser, base_url, path):
    """Every tooltip, aria label, placeholder and alt text a reader meets is Korean (after the scripts ran)."""
    ctx, page, _ = open_page(browser, base_url, path)
    try:
        page.wait_for_timeout(300)
        values = page.evaluate(f"""() => [...document.querySelectorAll('*')].flatMap(e =>
            {UI_ATTRS}.map(a => e.getAttribute(a)).filter(v => v && v.trim()))""")
        english = sorted({v for v in values if not HANGUL.search(v) and not NOT_UI_TEXT.match(v.strip())})
        assert not english, f"UI strings not in Korean: {english}"
        footer = page.inner_text("footer") if page.query_selector("footer") else ""
        assert "Copyright" not in footer and "By " not in footer, f"footer: {footer!r}"
        assert "Search this book" not in page.content()
    finally:
        ctx.close()


# ---------------------------------------------------------------- figures
@pytest.mark.parametrize("path", PAGES)
def test_figures_show_near_natural_size_with_captions(browser, base_url, path):
    """At 1280 px every figure shows at >= 70 % of its natural size, has a Korean caption and alt text, and opens full size."""
    ctx, page, _ = open_page(browser, base_url, path)
    try:
        figs = page.evaluate("""() => [...document.querySelectorAll('article img')]
            .filter(i => !i.src.includes('colab-badge'))
            .map(i => ({src: i.src.split('/').pop(), ratio: i.getBoundingClientRect().width / i.naturalWidth,
                        alt: i.alt, caption: (i.closest('figure') && i.closest('figure').querySelector('figcaption')
                                              || {textContent: ''}).textContent, zoom: !!i.closest('a'),
                        figures: (() => { let n = 0; for (let e = i.parentElement; e; e = e.parentElement)
                                            if (e.tagName === 'FIGURE') n++; return n; })()}))""")
        small = [f"{f['src'][:12]}: {f['ratio']:.2f}" for f in figs if f["ratio"] < 0.7]
        assert not small, f"figures shown below 70 % of their natural size: {small}"
        for f in figs:
            assert HANGUL.search(f["alt"]) and "_images" not in f["alt"], f"alt text {f['alt']!r} does not say what it shows"
            assert HANGUL.search(f["caption"]), f"{f['src'][:12]} has no Korean caption"
            assert f["zoom"], f"{f['src'][:12]} does not open at full size when tapped"
            assert f["figures"] == 1, f"{f['src'][:12]} sits in {f['figures']} nested figures (one caption, shown once)"
    finally:
        ctx.close()


# ---------------------------------------------------------------- diagrams laid out by Graphviz
def _graphviz_svgs() -> dict[str, dict[str, str]]:
    """{page: {image file name: SVG text}} for every Graphviz diagram (xpucalc.render.dot) a built page shows."""
    found: dict[str, dict[str, str]] = {}
    for path in PAGES:
        html = SITE / path
        if not html.is_file():
            continue
        for src in re.findall(r'<img[^>]*\bsrc="([^"]+\.svg)"', html.read_text(encoding="utf-8")):
            f = (html.parent / src).resolve()
            text = f.read_text(encoding="utf-8", errors="replace") if f.is_file() else ""
            if 'class="graph"' in text:  # Graphviz's top-level group; the Colab badge has none
                found.setdefault(path, {})[f.name] = text
    return found


@pytest.mark.parametrize("width", [1280, 390])
def test_diagram_text_is_large_enough_on_screen(browser, base_url, width):
    """A Graphviz diagram's smallest text is >= 9 px as shown (natural size x shown/natural width), on a laptop and a phone."""
    from xpucalc.render.dot import natural_text_px

    pages = _graphviz_svgs()
    if not pages:
        _unavailable("no page of the built site shows a Graphviz diagram")
    measured = []
    for path, svgs in pages.items():
        ctx, page, _ = open_page(browser, base_url, path, width=width)
        try:
            shown = page.evaluate("""() => [...document.querySelectorAll('article img')].filter(i => i.src.endsWith('.svg'))
                .map(i => [i.src.split('/').pop(), i.getBoundingClientRect().width / i.naturalWidth])""")
            for name, scale in shown:
                if name in svgs:
                    measured.append((path, name[:12], round(natural_text_px(svgs[name]) * scale, 1)))
        finally:
            ctx.close()
    assert len(measured) == sum(len(s) for s in pages.values()), f"diagrams not found on their pages: {measured}"
    small = [m for m in measured if m[2] < 9]
    assert not small, f"diagram text below 9 px at {width} px: {small}"


# ---------------------------------------------------------------- the whole-book PDF link
def test_book_pdf_is_linked_from_intro_and_download_menu(browser, base_url):
    ctx, page, _ = open_page(browser, base_url, "book/intro.html")
    try:
        hrefs = page.eval_on_selector_all("a[href$='xpu-book.pdf']", "els => els.map(a => a.getAttribute('href'))")
        in_menu = page.eval_on_selector_all(".dropdown-menu a[href$='xpu-book.pdf']", "els => els.length")
        in_text = page.eval_on_selector_all("article a[href$='xpu-book.pdf']", "els => els.length")
        assert in_menu >= 1, "the download menu has no whole-book PDF entry"
        assert in_text >= 1, "the intro does not link the whole-book PDF"
        assert all(h.endswith("../xpu-book.pdf") for h in hrefs), hrefs
        if (SITE / "xpu-book.pdf").is_file():
            r = page.request.get(f"{base_url}/xpu-book.pdf")
            assert r.status == 200 and r.body()[:5] == b"%PDF-"
    finally:
        ctx.close()


# ---------------------------------------------------------------- computation cells
def test_computation_cells_are_collapsed_not_removed(browser, base_url):
    """A page's tables and plots come with their code behind "계산 보기"; a lab answer shows only its rendered text."""
    ctx, page, _ = open_page(browser, base_url, NAV_PAGE)
    try:
        summaries = page.eval_on_selector_all("details.hide summary", "els => els.map(s => s.innerText.trim())")
        assert summaries and all("계산 보기" in s for s in summaries), summaries[:5]
        d = page.query_selector("details.hide")
        assert not d.query_selector(".cell_input").is_visible()
        d.query_selector("summary").click()
        page.wait_for_timeout(200)
        assert d.query_selector(".cell_input").is_visible() and "xpucalc" in page.content()
    finally:
        ctx.close()
    ctx, page, _ = open_page(browser, base_url, "labs/00_analytic_check.html")
    try:
        answers = page.query_selector_all(".xpu-answer")
        assert answers, "no lab answer cell found"
        for a in answers:
            assert a.query_selector("summary").inner_text().startswith("해설 보기")
            if a.query_selector(".cell_output"):  # a stored answer: only the rendered text, not its code
                assert not a.query_selector(".cell_input"), "the answer's code is shown with it"
        a = answers[0]
        a.query_selector("summary").click()
        page.wait_for_timeout(200)
        assert "해설 숨기기" in a.query_selector("summary").inner_text()
        assert (a.query_selector(".cell_output") or a.query_selector(".cell_input")).is_visible()
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        a.screenshot(path=str(ARTIFACTS / "lab-answer-open.png"))
    finally:
        ctx.close()
