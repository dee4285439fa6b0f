"""Korean search of the built site: search.html?q=QUERY lists the right pages (Pagefind index, see _ext/xpu_search.py).

Uses the fixtures of conftest.py (the served site, one Chromium, no network). One load per query: the
results, the snippets and, for the queries of CHAPTER_BEFORE_API, the ranking are checked on it.
"""
from __future__ import annotations

import re

import pytest
from _site import ui_strings_korean

# query -> a page that must be among the first 10 results. Korean with and without particles,
# Korean names of English terms (the glossary gives them), English terms, a number-heavy topic.
QUERIES = {
    "강도": "book/week05/common-example.html",            # the pages say 강도는 / 강도에 / 강도로
    "강도는": "book/week05/worked-example-1.html",        # a particle in the query
    "대역폭은": "book/llm-hardware/memory-bandwidth.html",
    "루프라인": "book/llm-hardware/glossary.html",        # the book writes "roofline"; the glossary gives 루프라인
    "디코드": "book/llm-hardware/memory-bandwidth.html",
    "프리필": "book/llm-hardware/glossary.html",
    "캐시": "book/llm-hardware/precision-quantization.html",
    "KV 캐시": "book/llm-hardware/precision-quantization.html",
    "roofline": "book/llm-hardware/roofline-serving.html",
    "decode": "book/llm-hardware/roofline-serving.html",
    "MFU": "book/llm-hardware/compute-budget.html",
    "사양표": "book/week05/spec-sheets.html",
    "정오표": "book/appendix/errata.html",
    "all-reduce": "book/llm-hardware/parallelism.html",
}
CHAPTER_BEFORE_API = ["roofline", "decode", "MFU"]
API_PAGE = "book/appendix/api.html"
UI_QUERY = "강도"  # its page's tooltips, labels and placeholders are checked for Korean too


def _results(page) -> tuple[list[str], list[str]]:
    """(result links, snippets) once the search page has answered."""
    page.wait_for_function("() => document.documentElement.dataset.xpuSearch", timeout=20000)
    results = page.eval_on_selector_all("a.xpu-search-title", "els => els.map(a => a.getAttribute('href'))")
    snippets = page.eval_on_selector_all(".xpu-search-snippet", "els => els.map(p => p.innerText)")
    return [r.lstrip("/") for r in results], snippets


@pytest.mark.parametrize("query", list(QUERIES))
def test_query_finds_the_page(browser, query):
    with browser.open(f"search.html?q={query}") as (page, log):
        results, snippets = _results(page)
        assert page.evaluate("() => document.documentElement.dataset.xpuSearch") == "done", \
            page.inner_text("#xpu-search-status")
        assert QUERIES[query] in results[:10], f"{query!r}: {QUERIES[query]} not in the first 10: {results[:10]}"
        for s in snippets:
            assert "\\(" not in s and "\\frac" not in s and "\\mathrm" not in s, f"TeX in a snippet: {s!r}"
            assert not re.search(r"\S#\s", s), f"heading anchors in a snippet: {s!r}"
        if query in CHAPTER_BEFORE_API:  # the chapters rank above the API reference
            assert results[0] != API_PAGE, f"{query!r}: the API reference ranks first: {results[:5]}"
            if API_PAGE in results:
                chapters = [r for r in results if r.startswith("book/") and r != API_PAGE]
                assert results.index(chapters[0]) < results.index(API_PAGE)
        if query == UI_QUERY:
            problems = ui_strings_korean(page)
            assert not problems, problems
        assert not log.console_errors, log.console_errors
        assert not log.external, log.external


def test_search_works_on_a_phone(browser):
    """At 390 px the search page lists links that lead to their page (the header's search form on every page
    is checked by test_site.py)."""
    with browser.open("search.html?q=산술 강도", width=390) as (page, _):
        results, _ = _results(page)
        assert results, "no results at 390 px"
        wide = page.evaluate("() => document.documentElement.scrollWidth")
        assert wide <= 391, f"the search page is {wide}px wide at 390px"
        page.click("a.xpu-search-title >> nth=0")
        page.wait_for_load_state("load")
        assert results[0].split("#")[0] in page.url


def test_no_query_explains_itself(browser):
    with browser.open("search.html") as (page, _):
        page.wait_for_timeout(300)
        assert "조사" in page.inner_text("#xpu-search-status")
