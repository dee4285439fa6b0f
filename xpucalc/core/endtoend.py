"""End-to-end time: device compute is only one stage of what a user waits for."""
from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

from .._check import non_negative


@dataclass(frozen=True)
class Path:
    """One execution path of a batch, split into sequential stages (seconds each).

    Args:
        name: display name (e.g. ``"경로 가"``).
        device_s: device compute for the whole job (matmul + bias + ReLU), seconds.
        transfer_s: host<->device copies needed per batch (input + output), seconds.
        host_s: host pre- and post-processing, seconds.
        compile_s: one-time compile/initialisation before the first batch, seconds.

    The stages are assumed not to overlap, as in the source's example.
    """

    name: str
    device_s: float
    transfer_s: float
    host_s: float
    compile_s: float = 0.0

    def __post_init__(self) -> None:
        for field in ("device_s", "transfer_s", "host_s", "compile_s"):
            object.__setattr__(self, field, non_negative(getattr(self, field), field))
        if self.per_batch_s <= 0:
            raise ValueError(f"{self.name}: device_s + transfer_s + host_s must be > 0")

    @property
    def per_batch_s(self) -> float:
        """Steady-state time for one batch: device + transfer + host, seconds.

        Summed exactly (7 ms + 2 ms + 2 ms is 11 ms, not 0.011000000000000001 s), so a
        break-even computed from it lands on the right whole number.
        """
        return float(_exact(self.device_s) + _exact(self.transfer_s) + _exact(self.host_s))

    @property
    def first_run_s(self) -> float:
        """Time from process start to the first result: compile + one batch, seconds."""
        return float(_exact(self.compile_s) + _exact(self.per_batch_s))

    def total_s(self, runs: int) -> float:
        """Total time for ``runs`` batches including the one-time compile, seconds."""
        if isinstance(runs, bool) or not isinstance(runs, int) or runs < 0:
            raise ValueError(f"runs must be a whole number >= 0, got {runs!r}")
        return self.compile_s + runs * self.per_batch_s

    def stages(self) -> dict[str, float]:
        """The steady-state stages in Korean, seconds each (for tables and stacked bars)."""
        return {"장치 연산": self.device_s, "호스트↔장치 전송": self.transfer_s, "호스트 전·후처리": self.host_s}


def _exact(x: float) -> Fraction:
    # Values such as 0.015 s are typed by people in decimal; Fraction(repr(x)) keeps
    # them exact (3/200), so a break-even that falls on a whole number stays whole.
    return Fraction(repr(float(x)))


def breakeven_runs(compile_a: float, per_run_a: float, compile_b: float, per_run_b: float) -> int | None:
    """Smallest number of runs after which path a's total time is strictly lower than b's.

    Total time after ``n`` runs is ``compile + n * per_run`` (seconds). Returns 1
    if a is already lower on the first run, and None if a never becomes lower.

    Args:
        compile_a: one-time compile time of a, seconds.
        per_run_a: time per run of a, seconds.
        compile_b: one-time compile time of b, seconds.
        per_run_b: time per run of b, seconds.
    """
    ca, pa = _exact(non_negative(compile_a, "compile_a")), _exact(non_negative(per_run_a, "per_run_a"))
    cb, pb = _exact(non_negative(compile_b, "compile_b")), _exact(non_negative(per_run_b, "per_run_b"))
    if ca + pa < cb + pb:
        return 1
    if pa >= pb:
        return None  # a is not lower at n = 1 and does not gain per run
    # a lower  <=>  n * (pb - pa) > ca - cb; here ca - cb >= pb - pa > 0 (a was not lower at n = 1), so n >= 2
    return math.floor((ca - cb) / (pb - pa)) + 1


def breakeven_point(compile_a: float, per_run_a: float, compile_b: float, per_run_b: float) -> float | None:
    """Number of runs (real-valued) at which the two totals are equal, or None if never (same args as :func:`breakeven_runs`)."""
    ca, pa = _exact(non_negative(compile_a, "compile_a")), _exact(non_negative(per_run_a, "per_run_a"))
    cb, pb = _exact(non_negative(compile_b, "compile_b")), _exact(non_negative(per_run_b, "per_run_b"))
    if pa == pb:
        return None
    n = (cb - ca) / (pa - pb)
    return float(n) if n >= 0 else None
