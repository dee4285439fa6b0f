"""Tables of the LLM layer's catalog-backed results, rendered for the reference part's pages.

Each function reads figures and estimates from ``xpucalc.llm`` and returns a
:class:`xpucalc.render.table.Table`; nothing is computed here beyond formatting.
"""
from __future__ import annotations

from ..catalog import devices
from ..llm import training
from ..units import fmt_num
from .table import Table


def _short(title: str) -> str:
    """The name part of a source title: up to the first colon or parenthesis."""
    return title.split(" (")[0].split(":")[0].strip()


def published_runs(caption: str = "") -> Table:
    """Each published training run, its budget, the implied MFU (6N only and with attention) and the reported MFU."""
    t = Table(["학습", "장치·GPU 시간", "토큰", "함의 MFU (6N만)", "함의 MFU (+어텐션)", "논문 보고 MFU", "출처"],
              caption=caption)
    for r in training.runs():
        rep = r.get("reported_mfu")
        t.add(r["name"], f"{devices.entry(r['device']).name} {fmt_num(r['device_hours'] / 1e6, 2)}M 시간",
              f"{fmt_num(r['tokens'] / 1e12, 1)}T", f"{fmt_num(100 * training.run_mfu(r, False), 1)} %",
              f"{fmt_num(100 * training.run_mfu(r, True), 1)} %",
              f"{fmt_num(100 * rep[0], 0)}–{fmt_num(100 * rep[1], 0)} %" if rep else "—",
              "; ".join(dict.fromkeys(_short(training.run_source(k).title)
                                       for k in (r["source"], r.get("tokens_source"), r.get("mfu_source")) if k)))
    return t


__all__ = ["published_runs"]
