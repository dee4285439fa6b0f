"""The source's grid: every (path, precision, M) run with one framework, and looking results up."""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .conditions import FRAMEWORKS, PATHS, PRECISIONS, check_choice
from .results import BenchResult


def run_grid(framework: str, *, paths: Sequence[str] = PATHS, precisions: Sequence[str] = PRECISIONS,
             ms: Sequence[int] = (128, 1), k: int = 1024, n: int = 1024, **runner_kwargs: Any) -> list[BenchResult]:
    """Run every (path, precision, M) of the source's grid with ``run_torch`` or ``run_jax``.

    ``runner_kwargs`` go to the runner (``device=``/``platform=``, ``warmup=``, ``reps=``, ``threads=``, ...).
    Order: path, then precision, then M -- the source's table order. One-time process
    setup is measured on its own before the first condition (each result's ``setup_s``).
    """
    check_choice(framework, "framework", FRAMEWORKS)
    if framework == "torch":
        from .torch_backend import run_torch as runner
    else:
        from .jax_backend import run_jax as runner
    return [runner(p, prec, m, k, n, **runner_kwargs) for p in paths for prec in precisions for m in ms]


def find(results: Sequence[BenchResult], path: str, precision: str, m: int) -> BenchResult | None:
    """The result for (path, precision, m) in ``results``, or None if the grid did not include it."""
    for r in results:
        if r.key() == (path, precision, m):
            return r
    return None


__all__ = ["find", "run_grid"]
