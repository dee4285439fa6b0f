"""xpucalc.render.glossary: book/terms.yml is read, checked and rendered as the glossary and the Week 5 table."""
from __future__ import annotations

import pathlib

import pytest

from xpucalc.render import glossary

ROOT = pathlib.Path(__file__).resolve().parents[2]
TERMS_FILE = ROOT / "book" / "terms.yml"


def entry(**kw):
    e = {"term": "디코드", "en": "decode", "aliases": ["decode"], "retired": ["decode"], "page": "book/x",
         "group": "llm", "definition": "토큰을 하나씩 만드는 단계입니다."}
    e.update(kw)
    return e


def test_the_course_file_loads_and_every_page_exists():
    terms = glossary.load(TERMS_FILE)
    assert len(terms) >= 60
    for t in terms:
        assert (ROOT / f"{t.page}.md").is_file() or (ROOT / f"{t.page}.ipynb").is_file(), (t.term, t.page)
        assert t.definition.endswith("."), (t.term, "a definition is a sentence")
    assert {t.group for t in terms} == set(glossary.GROUPS)


def test_names_are_the_term_then_the_english_term():
    t = glossary.parse([entry()])[0]
    assert t.glossary_names == ("디코드", "decode")
    assert glossary.parse([entry(term="dense", en="Dense")])[0].glossary_names == ("dense",)


@pytest.mark.parametrize("bad, message", [
    ({"group": "misc"}, "group 'misc'"),
    ({"retired": "decode"}, "retired must be a list"),
    ({"definition": " "}, "definition must be a non-empty"),
    ({"retired": ["디코드"]}, "the term itself is retired"),
])
def test_bad_entries_are_refused_with_the_field_named(bad, message):
    with pytest.raises(ValueError, match=message):
        glossary.parse([entry(**bad)])


def test_missing_fields_and_a_second_entry_for_one_name_are_refused():
    e = entry()
    del e["page"]
    with pytest.raises(ValueError, match="missing field.*page"):
        glossary.parse([e])
    with pytest.raises(ValueError, match="already defined by entry '디코드'"):
        glossary.parse([entry(), entry(term="Decode", en="decoding")])   # case does not make a new term
    with pytest.raises(ValueError, match="YAML list"):
        glossary.parse({"term": "x"})


def test_glossary_markdown_is_a_sphinx_glossary_of_the_group():
    terms = glossary.parse([entry(), entry(term="프리필", en="prefill", retired=[], group="frame"),
                            entry(term="쪽", en="page", retired=[], listed=False)])
    md = glossary.glossary_markdown(terms, "llm")
    assert md.splitlines()[:3] == ["````{glossary}", "디코드", "decode"]
    assert "  토큰을 하나씩 만드는 단계입니다. 배우는 곳: {doc}`/book/x`." in md
    assert "프리필" not in md and "쪽" not in md          # other group; not listed
    with pytest.raises(ValueError, match="one of frame"):
        glossary.glossary_markdown(terms, "nope")


def test_week_table_links_each_term_to_the_glossary():
    terms = glossary.parse([entry(week05=True), entry(term="TTFT", en="Time To First Token", retired=[], week05=True),
                            entry(term="층", en="layer", retired=[])])
    rows = glossary.week_table_markdown(terms).splitlines()
    assert rows[:3] == ["````{table}", ":class: xpu-terms", ""] and rows[-1] == "````"
    rows = rows[3:-1]
    assert rows[0] == "| 용어 | 영어 | 이 책에서의 뜻 | 배우는 곳 |"
    assert rows[2] == "| {term}`디코드` | decode | 토큰을 하나씩 만드는 단계입니다. | {doc}`/book/x` |"
    assert rows[3].startswith("| {term}`TTFT` | Time To First Token |")
    assert len(rows) == 4
    with pytest.raises(ValueError, match="week05"):
        glossary.week_table_markdown(terms[2:])
