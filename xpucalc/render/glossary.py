"""The course's glossary, rendered from ``book/terms.yml``: one entry per idea, one definition per entry.

The glossary page shows every listed entry, group by group, as a Sphinx ``glossary`` (so a page links a term
at its first use with ``{term}`KV 캐시``` and the build fails on a term the glossary lacks); the Week 5
study guide shows the entries marked ``week05`` as a table whose terms link to that glossary. Both are MyST
Markdown returned as a ``text/markdown`` output (:func:`show`) that the page renders with
``markdown_format: myst``.

Reading the file needs PyYAML (installed with Jupyter Book); it is imported by :func:`load` only, so
``import xpucalc`` stays free of it.
"""
from __future__ import annotations

import pathlib
import re
from collections.abc import Iterable
from dataclasses import dataclass

#: Glossary groups in page order: the ``group`` field's values and the headings they are shown under.
GROUPS = {
    "frame": "비교의 틀과 단위",
    "chip": "칩과 메모리",
    "link": "연결과 집합 통신",
    "software": "소프트웨어 경로와 측정",
    "llm": "LLM의 메모리와 연산",
    "service": "서비스와 결과 지표",
}

REQUIRED = ("term", "en", "aliases", "retired", "page", "group", "definition")
HANGUL = re.compile(r"[\uac00-\ud7a3]")


@dataclass(frozen=True)
class Term:
    """One idea: the word the prose writes, its English term, what readers type, what the prose must not write."""

    term: str
    en: str
    page: str
    group: str
    definition: str
    aliases: tuple[str, ...] = ()
    retired: tuple[str, ...] = ()
    anchor: str | None = None
    week05: bool = False
    listed: bool = True

    @property
    def glossary_names(self) -> tuple[str, ...]:
        """The names the glossary defines for this entry: the term, then the English term when it differs."""
        if self.en.casefold() == self.term.casefold():
            return (self.term,)
        return (self.term, self.en)


def parse(entries: object) -> list[Term]:
    """Check the loaded YAML (a list of mappings) and return its terms; ValueError names the entry and the fix."""
    if not isinstance(entries, list):
        raise ValueError("terms: the file must be a YAML list of entries (- term: ...)")
    terms, seen = [], {}
    for i, e in enumerate(entries):
        where = f"terms entry {i} ({e.get('term', '?') if isinstance(e, dict) else e!r})"
        if not isinstance(e, dict):
            raise ValueError(f"{where}: must be a mapping with the fields {', '.join(REQUIRED)}")
        missing = [k for k in REQUIRED if k not in e]
        if missing:
            raise ValueError(f"{where}: missing field(s) {', '.join(missing)}; add them (retired: [] when none)")
        if e["group"] not in GROUPS:
            raise ValueError(f"{where}: group {e['group']!r} is not one of {', '.join(GROUPS)}")
        for k in ("aliases", "retired"):
            if not isinstance(e[k], list) or not all(isinstance(a, str) and a.strip() for a in e[k]):
                raise ValueError(f"{where}: {k} must be a list of non-empty strings")
        for k in ("term", "en", "page", "definition"):
            if not isinstance(e[k], str) or not e[k].strip():
                raise ValueError(f"{where}: {k} must be a non-empty string")
        if e["term"] in e["retired"]:
            raise ValueError(f"{where}: the term itself is retired; retire the variant, not the term")
        t = Term(term=e["term"], en=e["en"], page=e["page"], group=e["group"],
                 definition=" ".join(e["definition"].split()), aliases=tuple(e["aliases"]),
                 retired=tuple(e["retired"]), anchor=e.get("anchor"), week05=bool(e.get("week05", False)),
                 listed=bool(e.get("listed", True)))
        for name in t.glossary_names:
            key = name.casefold()
            if key in seen:
                raise ValueError(f"{where}: {name!r} is already defined by entry {seen[key]!r}; one entry per idea")
            seen[key] = t.term
        terms.append(t)
    return terms


def load(path: str | pathlib.Path) -> list[Term]:
    """Read and check ``terms.yml`` (see :func:`parse`)."""
    import yaml

    text = pathlib.Path(path).read_text(encoding="utf-8")
    return parse(yaml.safe_load(text))


def _doc(page: str) -> str:
    return f"{{doc}}`/{page}`"


def glossary_markdown(terms: Iterable[Term], group: str) -> str:
    """The group's listed entries as a MyST ``glossary`` directive: names, definition, the page that teaches it."""
    if group not in GROUPS:
        raise ValueError(f"group {group!r} is not one of {', '.join(GROUPS)}")
    chosen = [t for t in terms if t.group == group and t.listed]
    if not chosen:
        raise ValueError(f"group {group!r} has no listed entries; check the group field in terms.yml")
    lines = ["````{glossary}"]
    for t in chosen:
        lines += list(t.glossary_names)
        lines.append(f"  {t.definition} 배우는 곳: {_doc(t.page)}.")
        lines.append("")
    lines.append("````")
    return "\n".join(lines)


def week_table_markdown(terms: Iterable[Term]) -> str:
    """The entries marked ``week05`` as a table (class ``xpu-terms``): the term linked to the glossary, its English
    term, its definition, the page that teaches it."""
    chosen = [t for t in terms if t.week05]
    if not chosen:
        raise ValueError("no entry is marked week05: true in terms.yml")
    rows = ["````{table}", ":class: xpu-terms", "", "| 용어 | 영어 | 이 책에서의 뜻 | 배우는 곳 |", "|---|---|---|---|"]
    for t in chosen:
        en = t.en if t.en.casefold() != t.term.casefold() else ""
        rows.append(f"| {{term}}`{t.term}` | {en} | {t.definition.replace('|', '∣')} | {_doc(t.page)} |")
    return "\n".join(rows + ["````"])


def show(markdown: str):
    """Display ``markdown`` as a ``text/markdown`` output (the page's cell sets ``markdown_format: myst``)."""
    from IPython.display import Markdown, display

    display(Markdown(markdown))
