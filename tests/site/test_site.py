"""What a reader sees: every page of the built site opened once in headless Chromium, every check made there.

One load per page (``test_page``). At 1280 px: the page works offline (no console error, no failed or outside
request), shows Korean text, typeset math and every image, and its header search form sends to search.html;
each figure shows near its natural size with a Korean caption and alt text; each Graphviz diagram's smallest
text is at least 9 px. The viewport then narrows to a phone (390 px): nothing reaches past its edge, and the
diagrams' text is still 9 px or more. Back at 1280 px come the checks that click: hidden answers open only when
clicked, computation cells are collapsed, lab answers unfold. The navigation test opens one page at three widths.
The fixtures (the served site, one Chromium) are in conftest.py; without a built site or Chromium these tests
skip, unless XPU_REQUIRE_SITE=1 (as in .ci/run).
"""
from __future__ import annotations

import functools
import re

import pytest
from _site import ARTIFACTS, HANGUL, PAGES, SITE, require_site, ui_strings_korean, unavailable

PHONE, LAPTOP = 390, 1280
SCREENSHOT_PAGES = {"book/intro.html", "book/week05/common-example.html", "book/week05/worked-example-1.html",
                    "book/week05/hardware.html", "labs/01_pytorch_lab.html"}
NAV_PAGE = "book/week05/measurements.html"
LAB_PAGE = "labs/00_analytic_check.html"
# Pages whose tooltips, aria labels, placeholders and alt texts are all checked for Korean (the search page's
# are checked by test_search.py).
UI_PAGES = {"book/intro.html", NAV_PAGE, LAB_PAGE, "book/appendix/status.html"}


def _screenshot(target, name: str, **options) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    target.screenshot(path=str(ARTIFACTS / name), **options)


# ---------------------------------------------------------------- what the built HTML says, read once
@functools.cache
def dropdown_pages() -> frozenset[str]:
    """Pages with answers hidden by sphinx-design (<details class="sd-dropdown">) or sphinx-togglebutton."""
    def hides(html: str) -> bool:
        for m in re.finditer(r'class="([^"]*)"', html):
            classes = set(m.group(1).split())
            if "sd-dropdown" in classes or {"dropdown", "toggle"} <= classes or {"dropdown", "admonition"} <= classes:
                return True
        return False

    return frozenset(p for p in PAGES if (SITE / p).is_file() and hides((SITE / p).read_text(encoding="utf-8")))


@functools.cache
def graphviz_svgs() -> dict[str, dict[str, str]]:
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


def test_the_site_has_hidden_answers_and_diagrams():
    """The click and diagram checks of test_page have something to check."""
    require_site()
    if not dropdown_pages():
        unavailable("no page with hidden answers in the built site")
    if not graphviz_svgs():
        unavailable("no page of the built site shows a Graphviz diagram")


# ---------------------------------------------------------------- checks at one width (each returns its problems)
def offline_and_complete(page, log) -> list[str]:
    problems = []
    if log.external:
        problems.append(f"page used the network: {log.external}")
    if log.console_errors:
        problems.append(f"console errors: {log.console_errors}")
    if log.failed:
        problems.append(f"failed requests: {log.failed}")
    main = page.inner_text("main") if page.query_selector("main") else page.inner_text("body")
    if len(HANGUL.findall(main)) <= 50:
        problems.append("the page shows little or no Korean text")
    n_math = page.eval_on_selector_all(".math", "els => els.length")
    n_typeset = page.eval_on_selector_all("mjx-container", "els => els.length")
    if n_typeset < n_math:
        problems.append(f"{n_math} math elements, {n_typeset} typeset")
    if "\\(" in main or "\\[" in main:
        problems.append("raw LaTeX left on the page")
    forms = page.eval_on_selector_all("form[action]", "els => els.map(f => f.getAttribute('action'))")
    if not any(f.endswith("search.html") for f in forms):
        problems.append(f"no header search form sends its query to search.html: {forms}")
    broken = page.eval_on_selector_all("img", "els => els.filter(i => !(i.complete && i.naturalWidth > 0)).map(i => i.src)")
    if broken:
        problems.append(f"images missing: {broken}")
    return problems


FIGURES_JS = """() => [...document.querySelectorAll('article img')]
    .filter(i => !i.src.includes('colab-badge'))
    .map(i => ({src: i.src.split('/').pop(), ratio: i.getBoundingClientRect().width / i.naturalWidth,
                alt: i.alt, caption: (i.closest('figure') && i.closest('figure').querySelector('figcaption')
                                      || {textContent: ''}).textContent, zoom: !!i.closest('a'),
                figures: (() => { let n = 0; for (let e = i.parentElement; e; e = e.parentElement)
                                    if (e.tagName === 'FIGURE') n++; return n; })()}))"""


def figures_near_natural_size(page) -> list[str]:
    """At 1280 px every figure shows at >= 70 % of its natural size, has a Korean caption and alt text, and opens full size."""
    problems = []
    for f in page.evaluate(FIGURES_JS):
        name = f["src"][:12]
        if f["ratio"] < 0.7:
            problems.append(f"figure {name} shown at {f['ratio']:.2f} of its natural size (below 0.70)")
        if not HANGUL.search(f["alt"]) or "_images" in f["alt"]:
            problems.append(f"alt text {f['alt']!r} of {name} does not say what it shows")
        if not HANGUL.search(f["caption"]):
            problems.append(f"{name} has no Korean caption")
        if not f["zoom"]:
            problems.append(f"{name} does not open at full size when tapped")
        if f["figures"] != 1:
            problems.append(f"{name} sits in {f['figures']} nested figures (one caption, shown once)")
    return problems


def diagram_text_large_enough(page, path: str, width: int) -> list[str]:
    """A Graphviz diagram's smallest text is >= 9 px as shown (natural size x shown/natural width)."""
    from xpucalc.render.dot import natural_text_px

    svgs = graphviz_svgs().get(path, {})
    if not svgs:
        return []
    shown = dict(page.evaluate("""() => [...document.querySelectorAll('article img')].filter(i => i.src.endsWith('.svg'))
        .map(i => [i.src.split('/').pop(), i.getBoundingClientRect().width / i.naturalWidth])"""))
    problems = [f"diagram {name[:12]} not found on the page" for name in svgs if name not in shown]
    for name, svg in svgs.items():
        px = round(natural_text_px(svg) * shown.get(name, 1), 1)
        if px < 9:
            problems.append(f"diagram {name[:12]}: text {px} px at {width} px (below 9)")
    return problems


# The innermost elements of <main> that reach past the viewport's right edge, for the failure message.
WIDE_ELEMENTS_JS = """() => [...document.querySelectorAll('main *')]
    .filter(e => !e.closest('.bd-sidebar-secondary') && e.getBoundingClientRect().right > 391 && ![...e.children].some(
        c => c.getBoundingClientRect().right > 391))
    .slice(0, 5).map(e => `${e.tagName}.${e.className}: ${(e.textContent || '').trim().slice(0, 60)}`)"""


def fits_a_phone(page) -> list[str]:
    # Measure once fonts are in and layout has settled: a busy CI machine can catch the theme mid-transition.
    page.evaluate("() => document.fonts.ready")
    wide = page.evaluate("() => document.documentElement.scrollWidth")
    if wide > PHONE + 1:
        page.wait_for_timeout(1000)
        wide = page.evaluate("() => document.documentElement.scrollWidth")
    if wide <= PHONE + 1:
        return []
    return [f"the page is {wide}px wide at a {PHONE}px viewport: something does not scroll in its box: "
            f"{page.evaluate(WIDE_ELEMENTS_JS)}"]


# ---------------------------------------------------------------- checks that click (each asserts)
# Playwright's is_visible(): a non-empty box and not visibility: hidden
VISIBLE_JS = ("e => { const r = e && e.getBoundingClientRect();"
              " return !!r && r.width > 0 && r.height > 0 && getComputedStyle(e).visibility !== 'hidden'; }")


def _opens(page, predicate_js: str, arg, message: str) -> None:
    """Wait (3 s at most) until ``predicate_js(arg)`` holds after a click; fail with ``message`` if it never does."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    try:
        page.wait_for_function(predicate_js, arg=arg, timeout=3000)
    except PlaywrightTimeout:
        pytest.fail(message)


def hidden_answers_stay_hidden_until_clicked(page, path: str) -> None:
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
        _opens(page, "t => !t.classList.contains('toggle-hidden')", t, "clicking did not open the answer")
        if body is not None:
            _opens(page, VISIBLE_JS, body, "the answer's body stays hidden after the click")
    if details:
        d = details[0]
        d.query_selector("summary").click()
        _opens(page, "d => d.open", d, "clicking did not open the answer")
        _opens(page, VISIBLE_JS, d.query_selector(".sd-summary-content"), "the opened answer's content is not visible")
    _screenshot(toggles[0] if toggles else details[0], path.replace("/", "_") + ".opened.png")


def book_pdf_linked(page, base_url: str) -> None:
    """With the whole-book PDF in the site, the intro links it in its text and in the download menu and the link
    works; without it (the README's build alone), nothing links it."""
    hrefs = page.eval_on_selector_all("a[href$='xpu-book.pdf']", "els => els.map(a => a.getAttribute('href'))")
    if not (SITE / "xpu-book.pdf").is_file():
        assert not hrefs, f"links to a PDF the site does not have: {hrefs}"
        return
    assert page.eval_on_selector_all(".dropdown-menu a[href$='xpu-book.pdf']", "els => els.length") >= 1, \
        "the download menu has no whole-book PDF entry"
    assert page.eval_on_selector_all("article a[href$='xpu-book.pdf']", "els => els.length") >= 1, \
        "the intro does not link the whole-book PDF"
    assert all(h.endswith("../xpu-book.pdf") for h in hrefs), hrefs
    r = page.request.get(f"{base_url}/xpu-book.pdf")
    assert r.status == 200 and r.body()[:5] == b"%PDF-"


def computation_cells_collapsed(page) -> None:
    """A page's tables and plots come with their code behind "계산 보기"."""
    summaries = page.eval_on_selector_all("details.hide summary", "els => els.map(s => s.innerText.trim())")
    assert summaries and all("계산 보기" in s for s in summaries), summaries[:5]
    d = page.query_selector("details.hide")
    assert not d.query_selector(".cell_input").is_visible()
    d.query_selector("summary").click()
    _opens(page, VISIBLE_JS, d.query_selector(".cell_input"), "clicking 계산 보기 did not show the code")
    assert "xpucalc" in page.content()


def lab_answers_show_only_their_text(page) -> None:
    """A lab answer unfolds under "해설 보기" and shows only its rendered text, not its code."""
    answers = page.query_selector_all(".xpu-answer")
    assert answers, "no lab answer cell found"
    for a in answers:
        assert a.query_selector("summary").inner_text().startswith("해설 보기")
        if a.query_selector(".cell_output"):  # a stored answer: only the rendered text, not its code
            assert not a.query_selector(".cell_input"), "the answer's code is shown with it"
    a = answers[0]
    a.query_selector("summary").click()
    _opens(page, "s => s.innerText.includes('해설 숨기기')", a.query_selector("summary"), "the answer's label did not turn")
    _opens(page, VISIBLE_JS, a.query_selector(".cell_output") or a.query_selector(".cell_input"), "the answer stays hidden")
    _screenshot(a, "lab-answer-open.png")


# ---------------------------------------------------------------- every page, one load
@pytest.mark.parametrize("path", PAGES)
def test_page(browser, path):
    assert (SITE / path).is_file(), f"{path} was not built"
    with browser.open(path, width=LAPTOP) as (page, log):
        problems = offline_and_complete(page, log) + figures_near_natural_size(page)
        problems += diagram_text_large_enough(page, path, LAPTOP)
        if path in UI_PAGES:
            problems += ui_strings_korean(page)
        if path in SCREENSHOT_PAGES:
            _screenshot(page, path.replace("/", "_") + ".png", full_page=True)
        page.set_viewport_size({"width": PHONE, "height": 900})
        problems += fits_a_phone(page) + diagram_text_large_enough(page, path, PHONE)
        assert not problems, f"{path}:\n  - " + "\n  - ".join(problems)
        page.set_viewport_size({"width": LAPTOP, "height": 900})
        if path in dropdown_pages():
            hidden_answers_stay_hidden_until_clicked(page, path)
        if path == "book/intro.html":
            book_pdf_linked(page, browser.base_url)
        if path == NAV_PAGE:
            computation_cells_collapsed(page)
        if path == LAB_PAGE:
            lab_answers_show_only_their_text(page)
        assert not log.console_errors, f"console errors after the clicks: {log.console_errors}"


# ---------------------------------------------------------------- navigation on every screen width
@pytest.mark.parametrize("width", [PHONE, 900, LAPTOP])
def test_sidebar_and_page_toc_open_and_close(browser, width):
    """The table of contents and the in-page TOC can be opened and closed by clicking, at phone to laptop widths."""
    with browser.open(NAV_PAGE, width=width) as (page, log):
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
                if width == PHONE and kind == "primary":
                    _screenshot(page, f"nav-open-{width}.png")
                page.keyboard.press("Escape")
                page.wait_for_timeout(300)
                assert not page.evaluate(f"() => document.getElementById('{dialog_id}').open"), \
                    f"Escape did not close the {kind} sidebar at {width}px"
        assert not log.console_errors, f"console errors: {log.console_errors}"
        assert not log.external, f"page used the network: {log.external}"


# ---------------------------------------------------------------- one search box, phone panels, toggles, numbers
SEARCH_BOXES_JS = """() => [...document.querySelectorAll('input[type=search], .search-button-field, .search-button')]
    .filter(e => { const r = e.getBoundingClientRect(); return r.width > 0 && r.height > 0
                   && getComputedStyle(e).visibility !== 'hidden' && !e.closest('dialog:not([open])'); })
    .map(e => e.className)"""


@pytest.mark.parametrize("width", [PHONE, LAPTOP])
def test_one_search_box(browser, width):
    """One way into the search on screen (the laptop view had two search fields: the header's and the sidebar's)."""
    with browser.open(NAV_PAGE, width=width) as (page, _):
        boxes = page.evaluate(SEARCH_BOXES_JS)
        assert len(boxes) == 1, f"{len(boxes)} search boxes at {width}px: {boxes}"


def accessible_names(page, selector: str) -> list[str]:
    """The accessible names Chromium computes for the elements matching ``selector`` (what a screen reader says)."""
    cdp = page.context.new_cdp_session(page)
    root = cdp.send("DOM.getDocument", {"depth": 0})["root"]["nodeId"]
    names = []
    for node in cdp.send("DOM.querySelectorAll", {"nodeId": root, "selector": selector})["nodeIds"]:
        ax = cdp.send("Accessibility.getPartialAXTree", {"nodeId": node, "fetchRelatives": False})["nodes"]
        names.append(next((n.get("name", {}).get("value", "") for n in ax if not n.get("ignored")), ""))
    return names


@pytest.mark.parametrize("path", [NAV_PAGE, LAB_PAGE, "book/llm-hardware/compute-budget.html"])
def test_each_toggle_has_its_own_name(browser, path):
    """Every "계산 보기" toggle was announced as the same "숨긴 내용 열기·닫기": each now says what it shows and where."""
    with browser.open(path) as (page, _):
        names = accessible_names(page, "details.hide > summary")
        assert names, "no collapsed cell on the page"
        shown = page.eval_on_selector_all("details.hide > summary .collapsed", """els => els.map(e => {
            const c = e.cloneNode(true); c.querySelectorAll('.visually-hidden').forEach(h => h.remove());
            return c.textContent.trim(); })""")
        assert len(set(names)) == len(names), f"toggles share a name: {sorted(n for n in names if names.count(n) > 1)}"
        for name, label in zip(names, shown):
            assert name.startswith(label), f"the name {name!r} does not start with the visible label {label!r}"
            assert len(name) > len(label) + 2 or "해설 보기:" in label, f"the name {name!r} says no more than {label!r}"


def test_phone_contents_panel_closes_on_a_choice_and_no_tooltip_stays(browser):
    """On a phone (touch) the in-page contents panel closes when an entry is chosen and shows the section; no
    tooltip is left on the page after tapping the buttons (the panel's button kept "이 페이지의 차례 열기·닫기")."""
    ctx = browser.chromium.new_context(viewport={"width": PHONE, "height": 800}, is_mobile=True, has_touch=True)
    try:
        page = ctx.new_page()
        page.goto(f"{browser.base_url}/{NAV_PAGE}", wait_until="load")
        page.wait_for_timeout(800)
        tooltips = "() => [...document.querySelectorAll('.tooltip')].filter(t => getComputedStyle(t).opacity > 0).map(t => t.innerText)"
        toggle = next(b for b in page.query_selector_all(".secondary-toggle") if b.is_visible())
        toggle.tap()
        page.wait_for_function("() => document.getElementById('pst-secondary-sidebar-modal').open", timeout=3000)
        entries = [a for a in page.query_selector_all("#pst-secondary-sidebar-modal a[href^='#']") if a.is_visible()]
        assert len(entries) >= 3, "the in-page contents panel shows no entries"
        target = entries[2].get_attribute("href")[1:]
        entries[2].tap()
        page.wait_for_timeout(1500)
        assert not page.evaluate("() => document.getElementById('pst-secondary-sidebar-modal').open"), \
            "the in-page contents panel stays open over the page after a choice"
        top = page.evaluate(f"() => document.getElementById('{target}').getBoundingClientRect().top")
        assert 0 <= top < 200, f"the chosen section is at {top}px"
        assert not page.evaluate(tooltips), f"a tooltip stays on the page: {page.evaluate(tooltips)}"
        # a button, then (for the panels) the backdrop beside the panel to close it
        for selector, backdrop in ((".theme-switch-button", None), (".secondary-toggle", (20, 700)),
                                   (".primary-toggle", (PHONE - 10, 700))):
            next(b for b in page.query_selector_all(selector) if b.is_visible()).tap()
            page.wait_for_timeout(700)
            if backdrop:
                page.touchscreen.tap(*backdrop)
            page.wait_for_timeout(1200)
            assert not page.evaluate("() => [...document.querySelectorAll('dialog')].some(d => d.open)"), \
                f"a panel stays open after tapping beside it ({selector})"
            assert not page.evaluate(tooltips), f"after tapping {selector}: a tooltip stays: {page.evaluate(tooltips)}"
    finally:
        ctx.close()


NUMBER_PAGES = ["book/week05/measurements.html", "labs/01_pytorch_lab.html", "book/llm-hardware/precision-quantization.html",
                "book/llm-hardware/compute-budget.html"]
BROKEN_NUMBERS_JS = r"""() => {
  const out = [];
  const walker = document.createTreeWalker(document.querySelector('article'), NodeFilter.SHOW_TEXT);
  const number = /\d(?:\.\d+)?e[-+]\d+/g;
  while (walker.nextNode()) {
    const n = walker.currentNode;
    if (n.parentElement.closest('pre, .math, mjx-container')) continue;
    for (const m of n.nodeValue.matchAll(number)) {
      const r = document.createRange();
      r.setStart(n, m.index);
      r.setEnd(n, m.index + m[0].length);
      if (new Set([...r.getClientRects()].map(x => Math.round(x.top))).size > 1) out.push(m[0]);
    }
  }
  return out;
}"""


@pytest.mark.parametrize("path", NUMBER_PAGES)
def test_numbers_do_not_break(browser, path):
    """A number in scientific notation stays on one line ("1.97e-06" broke as "1.97e-" / "06" in table cells)."""
    with browser.open(path, width=PHONE) as (page, _):
        for width in (PHONE, LAPTOP):
            page.set_viewport_size({"width": width, "height": 900})
            page.wait_for_timeout(200)
            broken = page.evaluate(BROKEN_NUMBERS_JS)
            assert not broken, f"numbers broken across lines at {width}px: {broken[:8]}"
