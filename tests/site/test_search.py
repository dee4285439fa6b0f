"""Korean search of the built site: search.html?q=QUERY lists the right pages (Pagefind index, see _ext/xpu_search.py).

Uses the site and browser fixtures of test_site.py (built site, Debian's Chromium, no network).
"""
from __future__ import annotations

import re
import sys
import pathlib

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from test_site import base_url, browser, open_page  # noqa: E402,F401  (pytest fixtures)

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


def search(browser, base_url, query: str, width: int = 1280):
    ctx, page, log = open_page(browser, base_url, f"search.html?q={query}", width=width)
    page.wait_for_function("() => document.documentElement.dataset.xpuSearch", timeout=20000)
    results = page.eval_on_selector_all("a.xpu-search-title", "els => els.map(a => a.getAttribute('href'))")
    snippets = page.eval_on_selector_all(".xpu-search-snippet", "els => els.map(p => p.innerText)")
    return ctx, page, log, [r.lstrip("/") for r in results], snippets


@pytest.mark.parametrize("query", list(QUERIES))
def test_query_finds_the_page(browser, base_url, query):
    ctx, page, log, results, snippets = search(browser, base_url, query)
    try:
        assert page.evaluate("() => document.documentElement.dataset.xpuSearch") == "done", \
            page.inner_text("#xpu-search-status")
        assert QUERIES[query] in results[:10], f"{query!r}: {QUERIES[query]} not in the first 10: {results[:10]}"
        for s in snippets:
            assert "\\(" not in s and "\\frac" not in s and "\\mathrm" not in s, f"TeX in a snippet: {s!r}"
            assert not re.search(r"\S#\s", s), f"heading anchors in a snippet: {s!r}"
        assert not log.console_errors, log.console_errors
        assert not log.external, log.external
    finally:
        ctx.close()


@pytest.mark.parametrize("query", CHAPTER_BEFORE_API)
def test_chapters_rank_above_the_api_reference(browser, base_url, query):
    ctx, _, _, results, _ = search(browser, base_url, query)
    try:
        assert results, f"{query!r}: no results"
        assert results[0] != API_PAGE, f"{query!r}: the API reference ranks first: {results[:5]}"
        if API_PAGE in results:
            chapters = [r for r in results if r.startswith("book/") and r != API_PAGE]
            assert results.index(chapters[0]) < results.index(API_PAGE)
    finally:
        ctx.close()


def test_search_works_on_a_phone_and_from_the_header(browser, base_url):
    """At 390 px the search page lists links; the header's search form sends its query to search.html."""
    ctx, page, log, results, _ = search(browser, base_url, "산술 강도", width=390)
    try:
        assert results, "no results at 390 px"
        wide = page.evaluate("() => document.documentElement.scrollWidth")
        assert wide <= 391, f"the search page is {wide}px wide at 390px"
        page.click(f"a.xpu-search-title >> nth=0")
        page.wait_for_load_state("load")
        assert results[0].split("#")[0] in page.url
    finally:
        ctx.close()
    ctx, page, _ = open_page(browser, base_url, "book/week05/index.html")
    try:
        forms = page.eval_on_selector_all("form[action]", "els => els.map(f => f.getAttribute('action'))")
        assert any(f.endswith("search.html") for f in forms), forms
    finally:
        ctx.close()


def test_no_query_explains_itself(browser, base_url):
    ctx, page, _ = open_page(browser, base_url, "search.html")
    try:
        page.wait_for_timeout(300)
        assert "조사" in page.inner_text("#xpu-search-status")
    finally:
        ctx.close()
