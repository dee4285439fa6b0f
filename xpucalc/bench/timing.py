"""Clocks, warm-up and statistics shared by every timer in ``xpucalc.bench``.

The API other modules (and other benchmarks: stream, gemm, collectives) build on:

* :func:`time_calls` -- ``reps`` timed calls after a warm-up, each interval
  covering ``fn()`` *and* ``sync(result)``, GC paused; seconds per call.
* :func:`warm_up` -- call until at least ``min_time_s`` has passed and two
  consecutive windows of calls agree (or ``max_time_s`` runs out).
* :func:`time_rounds` -- several functions timed in interleaved rounds, so a
  burst of load from another process lands on all of them alike.
* :func:`time_batches` -- ``batch`` calls back to back and one ``sync`` per sample,
  divided by ``batch``: the host-clock back-to-back time.
* :func:`calls_to_fill` -- how many calls fill a time budget (repetitions, calls per sample).
* :func:`summarize` -> :class:`Timing` -- min, p10, median, quartiles, IQR,
  a ``noisy`` flag (IQR/median above a threshold) and a ``bimodal`` flag.

Everything is in seconds. Nothing here imports torch or jax.
"""
from __future__ import annotations

import gc
import math
import statistics
import time
import warnings
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._check import check_bool, non_negative, positive

#: IQR / median above which a timing is flagged noisy.
NOISY_THRESHOLD = 0.10
#: Minimum share of the samples each of two clusters must hold for :func:`is_bimodal`.
BIMODAL_MIN_SHARE = 0.10
#: Ratio (smallest sample of the upper cluster) / (largest of the lower) from which two clusters count as separate.
BIMODAL_GAP = 1.25
#: Default warm-up: at least this long (seconds) ...
WARMUP_MIN_S = 0.1
#: ... and windows of this many calls whose medians agree within WARMUP_TOLERANCE, at most WARMUP_MAX_S seconds.
WARMUP_WINDOW = 5
WARMUP_TOLERANCE = 0.10
WARMUP_MAX_S = 2.0
#: Bounds on the timed repetitions a benchmark picks from its time budget (see :func:`calls_to_fill`).
MIN_REPS, MAX_REPS = 5, 200

Clock = Callable[[], float]
Sync = Callable[[Any], Any]


class NoisyTimingWarning(UserWarning):
    """Issued when a timing's IQR/median exceeds the noisy threshold."""


def check_count(value: object, name: str, minimum: int) -> int:
    """``value`` as int if it is a whole number >= ``minimum`` (bools refused), else ValueError naming ``name``."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise ValueError(f"{name} must be a whole number >= {minimum}, got {value!r}")
    if value < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {value!r}")
    return int(value)


def calls_to_fill(seconds_per_call: float, budget_s: float, lo: int = MIN_REPS, hi: int = MAX_REPS) -> int:
    """Calls of ``seconds_per_call`` seconds that fill ``budget_s`` seconds: ceil(budget_s / seconds_per_call),
    clamped to [``lo``, ``hi``]; ``hi`` when the time per call is not > 0 (too short to measure)."""
    budget_s = non_negative(budget_s, "budget_s")
    if not seconds_per_call > 0:
        return hi
    return int(min(hi, max(lo, math.ceil(budget_s / seconds_per_call))))


# --------------------------------------------------------------------------- statistics

def quantile(sorted_xs: Sequence[float], q: float) -> float:
    """The ``q``-quantile (0 <= q <= 1) of already sorted values, linear interpolation between order statistics.

    Position ``q * (n - 1)`` in the sorted list (numpy's default, ``statistics.quantiles(method="inclusive")``).
    """
    if not sorted_xs:
        raise ValueError("sorted_xs must hold at least one value")
    if not 0 <= q <= 1:
        raise ValueError(f"q must be in [0, 1], got {q!r}")
    pos = q * (len(sorted_xs) - 1)
    lo = math.floor(pos)
    hi = min(lo + 1, len(sorted_xs) - 1)
    return sorted_xs[lo] + (pos - lo) * (sorted_xs[hi] - sorted_xs[lo])


def is_bimodal(samples_s: Iterable[float], min_share: float = BIMODAL_MIN_SHARE, gap: float = BIMODAL_GAP) -> bool:
    """True if the samples fall into two separate clusters.

    The sorted samples are cut at every place that leaves at least ``min_share``
    of them (and at least 3) on each side; the distribution is bimodal when at
    some cut the smallest sample above is at least ``gap`` times the largest
    below. A run whose calls are either fast or stalled by another process
    (a scheduler tick) looks like this; its median then depends on how many
    calls were unlucky, and no single number describes it.
    """
    xs = sorted(float(x) for x in samples_s)
    lo_count = max(3, math.ceil(min_share * len(xs)))
    for i in range(lo_count, len(xs) - lo_count + 1):
        below, above = xs[i - 1], xs[i]
        if below > 0 and above >= gap * below:
            return True
    return False


@dataclass(frozen=True)
class Timing:
    """Summary of repeated timings of one boundary (seconds).

    Attributes:
        samples_s: every timed repetition, seconds, in the order measured.
        median_s: the median, seconds.
        q1_s, q3_s: first and third quartiles, seconds (linear interpolation between
            order statistics -- numpy's default, ``statistics.quantiles(method="inclusive")``).
        noisy_threshold: the IQR/median ratio above which :attr:`noisy` is True.
    """

    samples_s: tuple[float, ...]
    median_s: float
    q1_s: float
    q3_s: float
    noisy_threshold: float = NOISY_THRESHOLD

    @property
    def n(self) -> int:
        """Number of samples."""
        return len(self.samples_s)

    @property
    def iqr_s(self) -> float:
        """Inter-quartile range q3 - q1, seconds."""
        return self.q3_s - self.q1_s

    @property
    def rel_iqr(self) -> float:
        """IQR / median (dimensionless spread)."""
        return self.iqr_s / self.median_s if self.median_s > 0 else math.inf

    @property
    def noisy(self) -> bool:
        """True when IQR/median exceeds :attr:`noisy_threshold`."""
        return self.rel_iqr > self.noisy_threshold

    @property
    def min_s(self) -> float:
        """Fastest repetition, seconds (the least disturbed one)."""
        return min(self.samples_s)

    @property
    def p10_s(self) -> float:
        """10th percentile, seconds (close to the minimum, less sensitive to one lucky call)."""
        return quantile(sorted(self.samples_s), 0.10)

    @property
    def bimodal(self) -> bool:
        """True when the samples form two separate clusters (see :func:`is_bimodal`)."""
        return is_bimodal(self.samples_s)

    def spread_label(self) -> str:
        """IQR/median in percent, with Korean flags: e.g. ``"3%"``, ``"14% (불안정)"``, ``"9% (두 무리)"``."""
        flags = [f for f, on in (("불안정", self.noisy), ("두 무리", self.bimodal)) if on]
        return f"{self.rel_iqr:.0%}" + (f" ({', '.join(flags)})" if flags else "")


def summarize(samples_s: Iterable[float], noisy_threshold: float = NOISY_THRESHOLD, warn: bool = True,
              label: str = "timing") -> Timing:
    """Median, quartiles and noisy flag of ``samples_s`` (seconds).

    Args:
        samples_s: at least one non-negative duration, seconds.
        noisy_threshold: IQR/median ratio above which the timing is noisy (default 0.10).
        warn: issue a :class:`NoisyTimingWarning` when the timing is noisy.
        label: what was timed, for the warning message.
    """
    xs = tuple(float(x) for x in samples_s)
    if not xs:
        raise ValueError("samples_s must hold at least one duration")
    for x in xs:
        if not math.isfinite(x) or x < 0:
            raise ValueError(f"samples_s must hold finite durations >= 0, got {x!r}")
    thr = positive(noisy_threshold, "noisy_threshold")
    s = sorted(xs)
    t = Timing(xs, statistics.median(xs), quantile(s, 0.25), quantile(s, 0.75), thr)
    if check_bool(warn, "warn") and t.noisy:
        warnings.warn(f"{label}: IQR/median = {t.rel_iqr:.0%} > {thr:.0%} over {t.n} samples; "
                      "the median is unreliable (another process, frequency scaling, too few reps?)",
                      NoisyTimingWarning, stacklevel=2)
    return t


# --------------------------------------------------------------------------- timed loops

def _call(fn: Callable[[], Any], sync: Sync | None) -> None:
    out = fn()
    if sync is not None:
        sync(out)


class _GcPaused:
    """Context manager: garbage collector off inside, restored after (as ``timeit`` does)."""

    def __enter__(self) -> None:
        self.was_enabled = gc.isenabled()
        gc.disable()

    def __exit__(self, *exc: object) -> None:
        if self.was_enabled:
            gc.enable()


def gc_paused() -> _GcPaused:
    """``with gc_paused(): ...`` -- no garbage collection inside the block (a collection would be charged to it)."""
    return _GcPaused()


def warm_up(fn: Callable[[], Any], sync: Sync | None = None, *, min_time_s: float = WARMUP_MIN_S,
            max_time_s: float = WARMUP_MAX_S, window: int = WARMUP_WINDOW, tolerance: float = WARMUP_TOLERANCE,
            min_calls: int = 1, clock: Clock = time.perf_counter) -> int:
    """Call ``fn`` (then ``sync``) until it is warm; returns the number of calls made.

    Stops once at least ``min_time_s`` seconds and ``min_calls`` calls have
    passed *and* the medians of the last two windows of ``window`` calls agree
    within ``tolerance`` (relative); or, whatever the windows say, once
    ``max_time_s`` has passed. This removes one-time effects (lazy
    initialisation, autotuning, caches, clock ramp-up) from what is timed next.

    Args:
        fn, sync: as in :func:`time_calls`.
        min_time_s: least warm-up time, seconds (>= 0).
        max_time_s: most warm-up time, seconds (>= min_time_s).
        window: calls per comparison window (>= 1).
        tolerance: largest relative difference between the two windows' medians.
        min_calls: least number of calls (>= 0).
        clock: monotonic clock, seconds.
    """
    window = check_count(window, "window", 1)
    min_calls = check_count(min_calls, "min_calls", 0)
    if not (math.isfinite(min_time_s) and min_time_s >= 0):
        raise ValueError(f"min_time_s must be a finite number of seconds >= 0, got {min_time_s!r}")
    if not (math.isfinite(max_time_s) and max_time_s >= min_time_s):
        raise ValueError(f"max_time_s must be >= min_time_s ({min_time_s!r}), got {max_time_s!r}")
    tol = positive(tolerance, "tolerance")
    start = clock()
    durations: list[float] = []
    while True:
        t0 = clock()
        _call(fn, sync)
        t1 = clock()
        durations.append(t1 - t0)
        elapsed = t1 - start
        if elapsed >= max_time_s and len(durations) >= min_calls:
            return len(durations)
        if elapsed < min_time_s or len(durations) < max(min_calls, 2 * window):
            continue
        a = statistics.median(durations[-2 * window:-window])
        b = statistics.median(durations[-window:])
        if a > 0 and abs(b - a) <= tol * a:
            return len(durations)


def time_calls(fn: Callable[[], Any], warmup: int, reps: int, sync: Sync | None = None,
               clock: Clock = time.perf_counter, *, warmup_s: float = 0.0) -> list[float]:
    """Time ``reps`` calls of ``fn`` after ``warmup`` untimed calls, seconds each.

    Each timed interval covers ``fn()`` and then ``sync(result)``, so work that
    ``fn`` only *dispatches* (JAX, CUDA) is waited for before the clock stops.
    With ``sync=None`` nothing is waited for -- correct only for synchronous
    calls (PyTorch on a CPU, or a function that already blocks). The garbage
    collector is paused during the timed loop and each output is released
    before the next call, as ``timeit`` and ``torch.utils.benchmark`` do.

    Args:
        fn: the call to time, no arguments.
        warmup: untimed calls first (>= 0).
        reps: timed calls (>= 1).
        sync: called with ``fn``'s result inside the timed interval, e.g.
            ``lambda y: y.block_until_ready()``.
        clock: a monotonic clock in seconds.
        warmup_s: if > 0, after the ``warmup`` calls also :func:`warm_up` for at
            least this many seconds until two windows agree.
    """
    warmup = check_count(warmup, "warmup", 0)
    reps = check_count(reps, "reps", 1)
    for _ in range(warmup):
        _call(fn, sync)
    if warmup_s > 0:
        warm_up(fn, sync, min_time_s=warmup_s, max_time_s=max(WARMUP_MAX_S, 4 * warmup_s), clock=clock)
    samples = []
    with gc_paused():
        for _ in range(reps):
            t0 = clock()
            out = fn()
            if sync is not None:
                sync(out)
            samples.append(clock() - t0)
            out = None  # free the output now, so the next call can reuse its memory
    return samples


def batched(fn: Callable[[], Any], batch: int) -> Callable[[], Any]:
    """A call that makes ``batch`` (>= 1) calls of ``fn`` back to back and returns the last one's output,
    so that one wait on it covers the whole group."""
    batch = check_count(batch, "batch", 1)

    def group() -> Any:
        for _ in range(batch - 1):
            fn()
        return fn()

    return group


def time_batches(fn: Callable[[], Any], reps: int, batch: int, sync: Sync | None = None,
                 clock: Clock = time.perf_counter) -> list[float]:
    """Back-to-back time: ``reps`` samples of ``batch`` calls and one ``sync`` on the last output, each divided
    by ``batch``; seconds per call (:func:`time_calls` of ``batched``, no warm-up: warm up first)."""
    return [s / batch for s in time_calls(batched(fn, batch), 0, reps, sync=sync, clock=clock)]


def time_rounds(fns: Mapping[str, Callable[[], Any]], rounds: int, reps_per_round: int,
                sync: Sync | None = None, clock: Clock = time.perf_counter) -> dict[str, list[float]]:
    """Time several functions in interleaved rounds; seconds per call for each name.

    Round r times ``reps_per_round`` calls of each function in turn (the order of
    the functions alternates between rounds), so a slow spell of the machine is
    shared by all of them instead of landing on whichever ran during it. Warm
    the functions up first (:func:`warm_up`); GC stays paused for all rounds.

    Args:
        fns: name -> call with no arguments.
        rounds: number of rounds (>= 1).
        reps_per_round: timed calls of each function per round (>= 1).
        sync, clock: as in :func:`time_calls`.
    """
    rounds = check_count(rounds, "rounds", 1)
    reps_per_round = check_count(reps_per_round, "reps_per_round", 1)
    if not fns:
        raise ValueError("fns must name at least one function")
    names = list(fns)
    samples: dict[str, list[float]] = {name: [] for name in names}
    with gc_paused():
        for r in range(rounds):
            for name in (names if r % 2 == 0 else names[::-1]):
                fn = fns[name]
                for _ in range(reps_per_round):
                    t0 = clock()
                    out = fn()
                    if sync is not None:
                        sync(out)
                    samples[name].append(clock() - t0)
                    out = None
    return samples


class LastOutput:
    """Wrap a call so that the output of its most recent invocation stays in :attr:`value`.

    Used to check the accuracy of the *last timed* output: ``f = LastOutput(fn)``,
    time ``f``, then compare ``f.value``. Costs one attribute store per call.
    """

    def __init__(self, fn: Callable[[], Any]) -> None:
        self.fn = fn
        self.value: Any = None
        self.calls = 0

    def __call__(self) -> Any:
        self.value = self.fn()
        self.calls += 1
        return self.value


def interleaved(fns: Mapping[str, Callable[[], Any]], warmup: int, reps: int, rounds: int, *,
                warmup_s: float = WARMUP_MIN_S, clock: Clock = time.perf_counter) -> dict[str, list[float]]:
    """Warm up each function, then time ``reps`` calls of each in ``rounds`` interleaved rounds; seconds per call.

    Each function must wait for its own work (fold the ``sync`` into it). ``reps``
    is split as evenly as possible over ``rounds`` (the first rounds get one more
    call when it does not divide); warm-up is ``warmup`` calls plus
    :func:`warm_up` for at least ``warmup_s`` seconds each.

    Args:
        fns: name -> call with no arguments.
        warmup: untimed calls of each function first (>= 0).
        reps: timed calls of each function in total (>= 1).
        rounds: rounds to split them into (1 <= rounds <= reps).
        warmup_s: least time-based warm-up per function, seconds (0: only ``warmup`` calls).
        clock: monotonic clock, seconds.
    """
    warmup = check_count(warmup, "warmup", 0)
    reps = check_count(reps, "reps", 1)
    rounds = check_count(rounds, "rounds", 1)
    if rounds > reps:
        raise ValueError(f"rounds must be <= reps ({reps}), got {rounds}; use fewer rounds or more reps")
    warmup_s = non_negative(warmup_s, "warmup_s")
    for fn in fns.values():
        for _ in range(warmup):
            fn()
        if warmup_s > 0:
            warm_up(fn, min_time_s=warmup_s, max_time_s=max(WARMUP_MAX_S, 4 * warmup_s), clock=clock)
    out: dict[str, list[float]] = {name: [] for name in fns}
    base, extra = divmod(reps, rounds)
    for r in range(rounds):
        part = time_rounds(fns if r % 2 == 0 else dict(reversed(list(fns.items()))), 1, base + (r < extra),
                           clock=clock)
        for name, xs in part.items():
            out[name] += xs
    return out


__all__ = [
    "BIMODAL_GAP", "BIMODAL_MIN_SHARE", "LastOutput", "MAX_REPS", "MIN_REPS", "NOISY_THRESHOLD", "NoisyTimingWarning",
    "Timing", "WARMUP_MAX_S", "WARMUP_MIN_S", "WARMUP_TOLERANCE", "WARMUP_WINDOW", "batched", "calls_to_fill",
    "check_count", "gc_paused", "interleaved", "is_bimodal", "quantile", "summarize", "time_batches", "time_calls",
    "time_rounds", "warm_up",
]
