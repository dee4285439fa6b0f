"""Korean search of the built site: search.html?q=QUERY lists the page that teaches the term first and opens it at
the section (Pagefind index, see _ext/xpu_search.py; the page side is _ext/static/xpu-search.js).

Uses the fixtures of conftest.py (the served site, one Chromium, no network). One load per query: the first result,
its section, the snippets and the ranking of chapters above the API reference are checked on it.

Where a query names a term of the glossary (book/terms.yml), the page it must rank first is the entry's ``page``:
the glossary says which page teaches the idea, and the search must honour it for every spelling a reader types
(Korean, English, transliteration, with a particle). The other queries' pages were chosen by reading the chapters.
"""
from __future__ import annotations

import functools
import re
from urllib.parse import unquote, urlparse

import pytest
import yaml
from _site import PAGES, SITE, require_site, ui_strings_korean
from _toc import ROOT

TERMS_FILE = ROOT / "book" / "terms.yml"


@functools.cache
def glossary() -> dict[str, dict]:
    """book/terms.yml by term."""
    return {str(e["term"]): e for e in yaml.safe_load(TERMS_FILE.read_text(encoding="utf-8")) or []}


def taught(term: str) -> str:
    """The built page that teaches ``term`` according to the glossary."""
    entry = glossary().get(term)
    if entry is None:
        pytest.fail(f"{term!r} is not in book/terms.yml any more: update QUERIES in {__name__}")
    return f"{entry['page']}.html"


# query -> (glossary term whose page must rank first, or None) / the page itself. Korean spellings of the terms the
# chapters write in English, the English terms, transliterations, and each with and without a particle (after a
# Korean word and after a Latin term or unit), plus words that are not glossary entries.
GLOSSARY_QUERIES = {
    "루프라인": "루프라인",              # the chapters write "roofline"
    "루프라인은": "루프라인",
    "roofline": "루프라인",
    "Roofline이": "루프라인",            # a particle after a Latin term
    "프리필": "프리필",                  # the chapters write "prefill"
    "프리필과": "프리필",
    "prefill": "프리필",
    "디코드": "디코드",
    "디코드는": "디코드",
    "decode": "디코드",
    "텐서 코어": "Tensor Core",
    "텐서코어는": "Tensor Core",
    "Tensor Core": "Tensor Core",
    "올리듀스": "all-reduce",
    "올리듀스를": "all-reduce",
    "all-reduce": "all-reduce",
    "allreduce": "all-reduce",
    "시스톨릭": "시스톨릭 배열",
    "시스톨릭 배열이": "시스톨릭 배열",
    "systolic array": "시스톨릭 배열",
    "NVLink": "NVLink",
    "NVLink는": "NVLink",
    "GiB": "GiB",
    "GiB를": "GiB",
    "MFU": "MFU",
    "MFU는": "MFU",
    "KV 캐시": "KV 캐시",
    "KV캐시를": "KV 캐시",
    "대역폭은": "대역폭",
    "산술 강도": "산술 강도",
    "강도": "산술 강도",                 # the short form the chapters write (worked example 1 ranked first before)
    "손익분기": "손익분기점",            # lands on the break-even exercise, the entry's anchor
    "손익분기점": "손익분기점",          # (the study guide ranked first before the entry)
    "근거 라벨": "근거 라벨",            # the glossary names a section (anchor) of the intro
}
OTHER_QUERIES = {  # not glossary entries: plain ranking of the index
    "사양표": "book/week05/spec-sheets.html",
    "사양표를": "book/week05/spec-sheets.html",
    "정오표": "book/appendix/errata.html",
    "조건표": "book/week05/comparison-table.html",
    "반복 실행": "book/week05/software-path.html",     # first compile vs repeated runs (course map, software path)
    "오해": "book/week05/misconceptions.html",
}
# query -> words the heading of the section the first result opens must contain (the result lands on the section)
SECTIONS = {
    "근거 라벨": "근거",
    "GiB를": "GiB",
    "NVLink는": "NVLink",
    "MFU": "MFU",
    "KV 캐시": "KV 캐시",
    "all-reduce": "All-Reduce",
    "반복 실행": "반복 실행",
}
# The same pages with and without a particle after a Latin term ("NVLink는" found 2 of 15 pages before).
SAME_PAGES = [("NVLink는", "NVLink"), ("GiB를", "GiB"), ("Roofline이", "Roofline")]
CHAPTER_BEFORE_API = ["roofline", "decode", "MFU"]
API_PAGE = "book/appendix/api.html"
UI_QUERY = "루프라인"  # its page's tooltips, labels and placeholders are checked for Korean too


def expected_first(query: str) -> str:
    return taught(GLOSSARY_QUERIES[query]) if query in GLOSSARY_QUERIES else OTHER_QUERIES[query]


def _split(href: str) -> tuple[str, dict, str]:
    """(page path, query parameters, anchor) of a result link."""
    u = urlparse(href)
    params = dict(p.split("=", 1) for p in u.query.split("&") if "=" in p)
    path = unquote(u.path).lstrip("/")
    return path + "index.html" if path.endswith("/") else path, params, u.fragment  # Pagefind drops "index.html"


def _results(page) -> list[dict]:
    """The listed results once the search page has answered: href, path, anchor, title, snippet."""
    page.wait_for_function("() => document.documentElement.dataset.xpuSearch", timeout=20000)
    rows = page.eval_on_selector_all(".xpu-search-result", """els => els.map(li => ({
        href: li.querySelector('a.xpu-search-title').getAttribute('href'),
        title: li.querySelector('a.xpu-search-title').innerText,
        snippet: li.querySelector('.xpu-search-snippet').innerText}))""")
    for r in rows:
        r["path"], r["params"], r["anchor"] = _split(r["href"])
    return rows


def test_at_least_30_queries():
    assert len(GLOSSARY_QUERIES) + len(OTHER_QUERIES) >= 30


@pytest.mark.parametrize("query", [*GLOSSARY_QUERIES, *OTHER_QUERIES])
def test_query_ranks_the_teaching_page_first(browser, query):
    want = expected_first(query)
    with browser.open(f"search.html?q={query}") as (page, log):
        rows = _results(page)
        assert page.evaluate("() => document.documentElement.dataset.xpuSearch") == "done", \
            page.inner_text("#xpu-search-status")
        paths = [r["path"] for r in rows]
        assert paths and paths[0] == want, f"{query!r}: {want} should rank first: {paths[:5]}"
        first = rows[0]
        assert first["params"].get("hl"), f"{query!r}: the first result does not pass the words to mark: {first['href']}"
        entry = glossary().get(GLOSSARY_QUERIES.get(query, ""), {})
        if entry.get("anchor"):
            assert first["anchor"] == entry["anchor"], f"{query!r}: opens {first['href']}, not #{entry['anchor']}"
        if query in SECTIONS:
            assert first["anchor"], f"{query!r}: the first result opens the top of the page: {first['href']}"
            assert SECTIONS[query] in first["title"], f"{query!r}: lands on {first['title']!r}"
            heading = (SITE / first["path"]).read_text(encoding="utf-8")
            assert f'id="{first["anchor"]}"' in heading, f"{query!r}: {first['path']} has no #{first['anchor']}"
        for r in rows:
            s = r["snippet"]
            assert "\\(" not in s and "\\frac" not in s and "\\mathrm" not in s, f"TeX in a snippet: {s!r}"
            assert not re.search(r"\S#\s", s), f"heading anchors in a snippet: {s!r}"
        if query in CHAPTER_BEFORE_API and API_PAGE in paths:  # the chapters rank above the API reference
            chapters = [p for p in paths if p.startswith("book/") and p != API_PAGE]
            assert paths.index(chapters[0]) < paths.index(API_PAGE)
        if query == UI_QUERY:
            problems = ui_strings_korean(page)
            assert not problems, problems
        assert not log.console_errors, log.console_errors
        assert not log.external, log.external


@pytest.mark.parametrize("with_particle, bare", SAME_PAGES)
def test_a_particle_after_a_latin_term_finds_the_same_pages(browser, with_particle, bare):
    found = {}
    for q in (with_particle, bare):
        with browser.open(f"search.html?q={q}") as (page, _):
            found[q] = [r["path"] for r in _results(page)]
    assert found[bare], f"{bare!r} finds nothing"
    assert found[with_particle] == found[bare], f"{with_particle!r} finds {found[with_particle]}, {bare!r} {found[bare]}"


def test_a_result_lands_on_its_section_with_the_words_marked(browser):
    """Clicking a result opens its page at the section (the heading in view) with the query's words marked."""
    with browser.open("search.html?q=all-reduce") as (page, log):
        first = _results(page)[0]
        assert first["anchor"], first
        page.click("a.xpu-search-title >> nth=0")
        page.wait_for_load_state("load")
        page.wait_for_timeout(500)
        assert page.url.split("#")[0].endswith(first["path"]), page.url  # ?hl= is taken off the address
        assert page.url.endswith(f"#{first['anchor']}")
        top = page.evaluate(f"() => document.getElementById('{first['anchor']}').getBoundingClientRect().top")
        assert 0 <= top < 300, f"the section #{first['anchor']} is at {top}px, not at the top of the window"
        marks = page.eval_on_selector_all("article mark.xpu-hit", "els => els.map(m => m.textContent)")
        assert marks and all(m.lower() == "all-reduce" for m in marks), marks[:5]
        assert not page.query_selector(".math mark, mjx-container mark"), "a mark inside a formula"
        assert not log.console_errors, log.console_errors


def test_search_works_on_a_phone(browser):
    """At 390 px the search page lists links that lead to their page (the header's search form on every page
    is checked by test_site.py)."""
    with browser.open("search.html?q=산술 강도", width=390) as (page, _):
        rows = _results(page)
        assert rows, "no results at 390 px"
        wide = page.evaluate("() => document.documentElement.scrollWidth")
        assert wide <= 391, f"the search page is {wide}px wide at 390px"
        page.click("a.xpu-search-title >> nth=0")
        page.wait_for_load_state("load")
        assert rows[0]["path"] in page.url


def test_no_query_explains_itself(browser):
    with browser.open("search.html") as (page, _):
        page.wait_for_timeout(300)
        assert "조사" in page.inner_text("#xpu-search-status")


def test_opened_from_a_file_the_page_says_to_serve_the_site(browser):
    """From file:// a browser does not load the index: the page says so in Korean with the README's command."""
    require_site()
    ctx = browser.chromium.new_context(viewport={"width": 1280, "height": 900})
    try:
        page = ctx.new_page()
        errors = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.goto((SITE / "search.html").resolve().as_uri() + "?q=루프라인", wait_until="load")
        page.wait_for_timeout(500)
        box = page.query_selector("#xpu-search-file")
        assert box and box.is_visible(), "no message from file://: " + page.inner_text("main")[:300]
        text = box.inner_text()
        readme = (ROOT / "README.md").read_text(encoding="utf-8")
        command = re.search(r"python -m http\.server[^\n#]*?(?=\s*(#|$))", readme, re.M).group(0).strip()
        assert command in text, f"the message does not give the README's command {command!r}: {text!r}"
        assert "웹 서버" in text
        assert page.input_value("#xpu-search-input") == "루프라인"
        assert not errors, errors
    finally:
        ctx.close()


# ---------------------------------------------------------------- no unused index
SPHINX_SEARCH = re.compile(r'<script[^>]+src="[^"]*(searchindex\.js|searchtools\.js|language_data\.js)"')


def test_no_page_loads_sphinx_search_index():
    """Every page loaded Sphinx's 500 KB searchindex.js (and searchtools.js) in <head>; the search is Pagefind."""
    require_site()
    loading = [p for p in [*PAGES, "search.html", "genindex.html"]
               if (SITE / p).is_file() and SPHINX_SEARCH.search((SITE / p).read_text(encoding="utf-8"))]
    assert not loading, f"pages that load Sphinx's search index: {loading}"


def test_a_page_requests_no_search_index(browser):
    with browser.open("book/week05/hardware.html") as (page, _):
        loaded = page.evaluate("() => performance.getEntriesByType('resource').map(r => r.name)")
        assert not [u for u in loaded if "searchindex" in u or "pagefind" in u], loaded


def test_every_glossary_entry_points_at_a_built_page():
    """Each term's teaching page (and section anchor) exists in the built site, so search can rank it first
    (the build warns, and fails under -W, on an entry that does not)."""
    require_site()
    import sys

    sys.path.insert(0, str(ROOT / "_ext"))
    import xpu_search

    entries, problems = xpu_search.load_terms(ROOT, SITE)
    assert not problems, problems
    assert len(entries) == len(glossary())
    assert (SITE / "pagefind" / xpu_search.TERMS_JSON).is_file(), "the build wrote no term list for the search page"
