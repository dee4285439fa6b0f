"""The workload memo as the lab shows it: a Korean table (HTML and Markdown) and plain text.

:func:`xpucalc.llm.memo.memo` computes a :class:`~xpucalc.llm.memo.MemoReport`; this module only
lays it out. The parallelism decision of the scalar path is worded by
:mod:`xpucalc.render.parallelism_text`: its label is the row "병렬화 제안" after the estimates,
and its reasons and caveats are the last notes, each after "병렬화 판단: ".
In a notebook, ``show_memo(report)`` displays the table.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..llm.memo import MemoReport
from . import parallelism_text
from .table import Code, Table


def rows(report: MemoReport) -> list[tuple[str, str, str]]:
    """(item, value, basis) rows in display order: estimates, the parallelism suggestion, the reader's notes."""
    plan = [("병렬화 제안", parallelism_text.strategy(report.plan), "결정 흐름")] if report.plan else []
    return list(report.rows) + plan + list(report.context_rows)


def notes(report: MemoReport) -> list[str]:
    """Lines under the table: suggestions, messages, then the parallelism reasons and caveats."""
    said = []
    if report.plan:
        told = parallelism_text.narrate(report.plan)
        said = [f"병렬화 판단: {r}" for r in told.reasons + told.warnings]
    return list(report.suggestions) + list(report.messages) + said


def memo_table(report: MemoReport) -> Table:
    """The report as a :class:`~xpucalc.render.table.Table`; an input error is a one-row table of the fix."""
    if report.error:
        t = Table(["입력 오류", "고치는 법"])
        t.add(Code(report.error.argument), report.error.message)
        return t
    t = Table(["항목", "값", "근거"], caption=report.verdict)
    for r in rows(report):
        t.add(*r)
    t.notes.extend(notes(report))
    return t


def memo_markdown(report: MemoReport) -> str:
    """The memo as plain Markdown to copy into a design document or an issue."""
    return "## 내 워크로드 메모\n\n" + memo_table(report).to_markdown() + "\n"


def memo_text(report: MemoReport) -> str:
    """The memo as aligned plain text: the verdict, one line per row with its basis, then the notes."""
    if report.error:
        return f"입력 오류 — {report.error}"
    shown = rows(report)
    width = max(len(r[0]) for r in shown) if shown else 0
    lines = [report.verdict] + [f"  {a.ljust(width)}  {b}  [{c}]" for a, b, c in shown]
    lines += [f"  * {m}" for m in notes(report)]
    return "\n".join(lines)


@dataclass(frozen=True)
class MemoView:
    """A report dressed for a notebook: HTML and Markdown tables, plain text, and ``text()`` to copy."""

    report: MemoReport

    def text(self) -> str:
        """The memo as Markdown (see :func:`memo_markdown`)."""
        return memo_markdown(self.report)

    def _repr_html_(self) -> str:
        return memo_table(self.report).to_html()

    def _repr_markdown_(self) -> str:
        return memo_table(self.report).to_markdown()

    def __repr__(self) -> str:
        return memo_text(self.report)

    __str__ = __repr__


def show_memo(report: MemoReport) -> MemoView:
    """The report as notebooks display it (``show_memo(memo(model=..., gpu=...))`` as a cell's last line)."""
    return MemoView(report)


__all__ = ["MemoView", "memo_markdown", "memo_table", "memo_text", "notes", "rows", "show_memo"]
