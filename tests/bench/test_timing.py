"""xpucalc.bench.timing: exact samples under scripted clocks, warm-up, interleaving, batches, statistics.

Every expected value is worked out by hand in the comment beside it: quantiles by position q (n - 1), the
bimodal cut rule, warm-up call counts under a scripted clock, the order of interleaved rounds. No framework
and (but for two sleeps) no real clock: ``tools/mutation`` runs this file, and mutmut's workers must not
import torch or jax (their threads deadlock forked workers).
"""
from __future__ import annotations

import gc
import math
import statistics
import time
import warnings

import numpy as np
import pytest

from xpucalc.bench import timing


class FakeClock:
    """A clock that only moves when the code under test says so (seconds)."""

    def __init__(self):
        self.t = 100.0
        self.log: list[str] = []

    def __call__(self):
        return self.t

    def work(self, seconds, what="fn"):
        def f(*_):
            self.t += seconds
            self.log.append(what)
            return what
        return f


class ScriptedClock:
    """A clock that moves only when a scripted call runs: call k takes durations[k] seconds."""

    def __init__(self, durations, start=50.0):
        self.t = start
        self.durations = list(durations)
        self.calls = 0

    def __call__(self):
        return self.t

    def fn(self):
        d = self.durations[min(self.calls, len(self.durations) - 1)]  # the last duration repeats
        self.calls += 1
        self.t += d
        return self.calls


# --- check_count, calls_to_fill, quantile, is_bimodal ------------------------------------------------------------
def test_check_count():
    assert timing.check_count(3, "reps", 1) == 3
    assert timing.check_count(np.int64(0), "warmup", 0) == 0 and type(timing.check_count(np.int64(2), "r", 1)) is int
    with pytest.raises(ValueError, match=r"^reps must be a whole number >= 1, got True"):
        timing.check_count(True, "reps", 1)
    with pytest.raises(ValueError, match=r"^reps must be a whole number >= 1, got 2\.0"):
        timing.check_count(2.0, "reps", 1)
    with pytest.raises(ValueError, match=r"^reps must be >= 1, got 0"):
        timing.check_count(0, "reps", 1)


def test_calls_to_fill_by_hand():
    # ceil(1 s / 0.1 s) = 10 calls, within the default bounds [5, 200]
    assert timing.calls_to_fill(0.1, 1.0) == 10
    assert timing.calls_to_fill(0.3, 1.0) == 5 == timing.MIN_REPS     # ceil(3.33) = 4, raised to 5
    assert timing.calls_to_fill(10.0, 1.0) == timing.MIN_REPS
    assert timing.calls_to_fill(1e-9, 1.0) == timing.MAX_REPS == 200  # 10^9 calls, capped
    assert timing.calls_to_fill(0.25, 1.0, 1, 10) == 4                # exactly 4: ceil does not add one
    assert timing.calls_to_fill(0.3, 1.0, 1, 10) == 4                 # 3.33 -> 4
    assert timing.calls_to_fill(0.3, 1.0, 4, 10) == 4 and timing.calls_to_fill(0.3, 1.0, 6, 10) == 6
    assert timing.calls_to_fill(0.01, 1.0, 1, 100) == 100 and timing.calls_to_fill(0.01, 1.0, 1, 99) == 99
    # a call too short to measure (0 s) or a bad reading: the most calls
    assert timing.calls_to_fill(0.0, 1.0) == 200 and timing.calls_to_fill(-1.0, 1.0, 1, 7) == 7
    assert timing.calls_to_fill(math.nan, 1.0, 1, 7) == 7
    assert type(timing.calls_to_fill(0.1, 1.0)) is int
    assert (timing.MIN_REPS, timing.MAX_REPS) == (5, 200)


def test_quantile_by_position():
    xs = [1.0, 2.0, 3.0, 4.0]
    assert timing.quantile(xs, 0.25) == pytest.approx(1.75)   # position 0.75: 1 + 0.75 x (2 - 1)
    assert timing.quantile(xs, 0.5) == pytest.approx(2.5)     # position 1.5
    assert timing.quantile(xs, 0.0) == 1.0
    assert timing.quantile(xs, 1.0) == 4.0                    # position 3: the last, no element beyond
    assert timing.quantile([7.0], 0.9) == 7.0
    assert timing.quantile([0.0, 10.0], 0.1) == pytest.approx(1.0)
    with pytest.raises(ValueError, match=r"^sorted_xs must hold at least one value"):
        timing.quantile([], 0.5)
    for q in (-0.1, 1.5):
        with pytest.raises(ValueError, match=rf"^q must be in \[0, 1\], got {q}"):
            timing.quantile(xs, q)


def test_quantile_and_p10_by_hand():
    xs = [float(i) for i in range(1, 11)]  # 1..10: p10 at position 0.9 -> 1 + 0.9 = 1.9
    t = timing.summarize(xs, warn=False)
    assert t.p10_s == pytest.approx(1.9) and t.min_s == 1.0 and t.median_s == 5.5
    assert t.p10_s == pytest.approx(np.percentile(xs, 10))  # a second method
    assert timing.quantile([2.0], 0.5) == 2.0
    with pytest.raises(ValueError, match="q"):
        timing.quantile([1.0], 1.5)


def test_is_bimodal_cut_rule():
    # n = 10, min_share 0.1: at least max(3, ceil(1)) = 3 samples on each side, cuts i = 3..7
    assert timing.is_bimodal([1.0] * 3 + [1.25] * 7)          # exactly the gap 1.25 counts
    assert not timing.is_bimodal([1.0] * 3 + [1.24] * 7)
    assert timing.is_bimodal([1.0] * 7 + [2.0] * 3)           # the last allowed cut, i = 7
    assert not timing.is_bimodal([1.0] * 8 + [2.0] * 2)       # only 2 above: no allowed cut separates them
    assert not timing.is_bimodal([1.0] * 2 + [2.0] * 8)
    assert timing.is_bimodal([2.0] * 5 + [1.0] * 5)           # order does not matter (sorted first)
    # n = 40: each side needs ceil(0.1 x 40) = 4
    assert not timing.is_bimodal([1.0] * 3 + [2.0] * 37)
    assert timing.is_bimodal([1.0] * 4 + [2.0] * 36)
    # n = 40 with min_share 0.25: 10 on each side
    assert not timing.is_bimodal([1.0] * 9 + [2.0] * 31, min_share=0.25)
    assert timing.is_bimodal([1.0] * 10 + [2.0] * 30, min_share=0.25)
    # custom gap
    assert timing.is_bimodal([1.0] * 5 + [1.5] * 5) and not timing.is_bimodal([1.0] * 5 + [1.5] * 5, gap=2.0)
    # zero durations below the cut never count as a cluster (ratio undefined)
    assert not timing.is_bimodal([0.0] * 5 + [1.0] * 5)
    assert not timing.is_bimodal([1.0] * 5)


def test_bimodal_two_clusters():
    # 20 calls at 1.0 ms and 10 stalled at 5.0 ms (a 4 ms scheduler tick): two clusters
    assert timing.is_bimodal([1e-3] * 20 + [5e-3] * 10)
    assert timing.summarize([1e-3] * 20 + [5e-3] * 10, warn=False).bimodal


def test_not_bimodal_one_cluster_or_a_few_outliers():
    rng = np.random.default_rng(0)
    one = 1e-3 * (1 + 0.02 * rng.standard_normal(200))
    assert not timing.is_bimodal(one)
    # two outliers of 30 are below the 10 % share: a tail, not a second mode
    assert not timing.is_bimodal([1e-3] * 28 + [5e-3] * 2)
    # a gap of 20 % is below the 1.25x threshold
    assert not timing.is_bimodal([1.0] * 10 + [1.2] * 10)


# --- Timing and summarize ----------------------------------------------------------------------------------------
def test_summarize_quartiles_by_hand():
    # sorted: 1 2 3 4 5 6 7 8 9 ms; inclusive quartiles: position (n-1)/4 = 2 -> 3 ms, 3*(n-1)/4 = 6 -> 7 ms
    xs = [9, 1, 8, 2, 7, 3, 6, 4, 5]
    t = timing.summarize([x * 1e-3 for x in xs], warn=False)
    assert t.median_s == pytest.approx(5e-3)
    assert t.q1_s == pytest.approx(3e-3)
    assert t.q3_s == pytest.approx(7e-3)
    assert t.iqr_s == pytest.approx(4e-3)
    assert t.rel_iqr == pytest.approx(0.8)
    assert t.noisy
    assert t.n == 9


def test_summarize_interpolates_between_order_statistics():
    # n = 4: positions 0.75 and 2.25 -> q1 = 10 + 0.75*(20-10) = 17.5, q3 = 30 + 0.25*(40-30) = 32.5
    t = timing.summarize([10.0, 20.0, 30.0, 40.0], warn=False)
    assert (t.q1_s, t.median_s, t.q3_s) == pytest.approx((17.5, 25.0, 32.5))


def test_timing_properties_by_hand():
    t = timing.summarize([1, 2, 3, 4, 10], warn=False)
    # sorted 1 2 3 4 10: median 3, q1 at position 1 = 2, q3 at position 3 = 4, IQR 2, IQR/median 2/3
    assert t.samples_s == (1.0, 2.0, 3.0, 4.0, 10.0) and all(type(x) is float for x in t.samples_s)
    assert (t.n, t.median_s, t.q1_s, t.q3_s, t.iqr_s) == (5, 3.0, 2.0, 4.0, 2.0)
    assert t.rel_iqr == pytest.approx(2 / 3)
    assert t.min_s == 1.0
    assert t.p10_s == pytest.approx(1.4)                       # position 0.4: 1 + 0.4 x (2 - 1)
    assert t.noisy and not t.bimodal and t.noisy_threshold == 0.10
    assert t.spread_label() == "67% (불안정)"
    # p10 sorts first; min is the smallest, not the first
    u = timing.summarize([5.0, 1.0, 3.0], warn=False)
    assert (u.samples_s, u.min_s, u.median_s, u.p10_s) == ((5.0, 1.0, 3.0), 1.0, 3.0, pytest.approx(1.4))
    # even count: median is the mean of the middle two
    assert timing.summarize([1, 2, 3, 10], warn=False).median_s == 2.5


def test_noisy_threshold_is_strict_and_zero_median_is_infinite():
    # 2 3 4 5 6: median 4, q1 3, q3 5 -> IQR/median = 0.5 exactly
    assert not timing.summarize([2, 3, 4, 5, 6], noisy_threshold=0.5, warn=False).noisy
    assert timing.summarize([2, 3, 4, 5, 6], noisy_threshold=0.49, warn=False).noisy
    z = timing.summarize([0.0, 0.0, 0.0], warn=False)
    assert z.rel_iqr == math.inf and z.noisy
    assert timing.Timing((1.0,), 1.0, 1.0, 1.0).rel_iqr == 0.0


def test_noisy_flag_threshold_and_warning():
    # 100 samples: 80 of them 1.00 ms; both quartiles (positions 24.75 and 74.25) are 1.00 ms -> IQR 0
    quiet = [1e-3] * 40 + [0.98e-3] * 10 + [1.02e-3] * 10 + [1e-3] * 40
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        t = timing.summarize(quiet)
    assert not t.noisy and t.rel_iqr == pytest.approx(0.0)

    # n = 9, inclusive quartiles at sorted positions 2 and 6:
    # q1 = 0.96, q3 = 1.04, median 1.00 -> IQR/median = 8 % (not noisy)
    calm = [1.2, 0.8, 0.9, 0.96, 1.0, 1.0, 1.0, 1.04, 1.3]  # sorted: .8 .9 .96 1 1 1 1.04 1.2 1.3
    t = timing.summarize(calm, warn=False)
    assert (t.q1_s, t.median_s, t.q3_s) == pytest.approx((0.96, 1.0, 1.04))
    assert t.rel_iqr == pytest.approx(0.08) and not t.noisy
    # q1 = 0.94, q3 = 1.06 -> 12 % > 10 %: noisy, and a warning
    noisy = [1.2, 0.8, 0.9, 0.94, 1.0, 1.0, 1.0, 1.06, 1.3]
    t = timing.summarize(noisy, warn=False)
    assert (t.q1_s, t.q3_s) == pytest.approx((0.94, 1.06))
    assert t.rel_iqr == pytest.approx(0.12) and t.noisy
    with pytest.warns(timing.NoisyTimingWarning, match="IQR/median"):
        timing.summarize(noisy, label="x")
    # a looser threshold accepts it
    assert not timing.summarize(noisy, noisy_threshold=0.2, warn=False).noisy


def test_spread_label_flags():
    assert timing.summarize([1.0] * 5, warn=False).spread_label() == "0%"
    # 10 x 1 and 10 x 2: median 1.5, q1 1 (position 4.75), q3 2 (position 14.25): 1 / 1.5 = 67 %, two clusters
    assert timing.summarize([1.0] * 10 + [2.0] * 10, warn=False).spread_label() == "67% (불안정, 두 무리)"
    # 17 x 1 and 3 x 1.3: IQR 0 (both quartiles 1), but a cut at i = 17 leaves 3 above with ratio 1.3
    assert timing.summarize([1.0] * 17 + [1.3] * 3, warn=False).spread_label() == "0% (두 무리)"
    # 20 calls at 1 ms, 10 stalled at 5 ms: both flags
    lab = timing.summarize([1e-3] * 20 + [5e-3] * 10, warn=False).spread_label()
    assert "불안정" in lab and "두 무리" in lab


def test_summarize_checks_and_warns():
    with pytest.raises(ValueError, match=r"^samples_s must hold at least one duration"):
        timing.summarize([])
    for bad in (-1.0, math.nan, math.inf):
        with pytest.raises(ValueError, match=r"^samples_s must hold finite durations >= 0, got "):
            timing.summarize([1.0, bad])
    with pytest.raises(ValueError, match=r"^noisy_threshold must be > 0"):
        timing.summarize([1.0], noisy_threshold=0.0)
    assert timing.summarize([0.0], warn=False).median_s == 0.0   # a zero duration is allowed
    with pytest.warns(timing.NoisyTimingWarning,
                      match=r"^matmul: IQR/median = 50% > 10% over 5 samples; the median is unreliable"):
        timing.summarize([2, 3, 4, 5, 6], label="matmul")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        timing.summarize([2, 3, 4, 5, 6], warn=False)
        timing.summarize([1.0, 1.0, 1.0])                      # not noisy: no warning either


def test_noisy_warning_has_the_default_label():
    with pytest.warns(timing.NoisyTimingWarning, match=r"^timing: IQR/median = 50% > 10% over 5 samples"):
        timing.summarize([2, 3, 4, 5, 6])


# --- warm-up ----------------------------------------------------------------------------------------------------
def test_warm_up_stops_when_two_windows_agree():
    # constant 1 s calls, window 2: the first comparison needs 2 x 2 = 4 calls and agrees at once
    c = ScriptedClock([1.0])
    assert timing.warm_up(c.fn, min_time_s=0.0, window=2, max_time_s=100.0, clock=c) == 4
    # 3 3 2 2 1.25 1 1 1, window 2, tolerance 0.1: medians (a, b) after call 4: (3, 2); 5: (2.5, 1.625);
    # 6: (2, 1.125); 7: (1.625, 1); 8: (1.125, 1) -> 0.125 > 0.1125; 9: (1, 1) agree -> 9 calls
    c = ScriptedClock([3, 3, 2, 2, 1.25, 1, 1, 1, 1])
    assert timing.warm_up(c.fn, min_time_s=0.0, window=2, max_time_s=100.0, clock=c) == 9


def test_warm_up_tolerance_is_inclusive():
    # 1 1 1.25 1.25: a = 1, b = 1.25, |b - a| = 0.25 <= 0.25 x 1 -> stops at 4
    c = ScriptedClock([1.0, 1.0, 1.25])
    assert timing.warm_up(c.fn, min_time_s=0.0, window=2, tolerance=0.25, max_time_s=100.0, clock=c) == 4
    # with a tolerance just below, call 5 compares (1.125, 1.25): 0.125 <= 0.2 x 1.125 -> 5
    c = ScriptedClock([1.0, 1.0, 1.25])
    assert timing.warm_up(c.fn, min_time_s=0.0, window=2, tolerance=0.2, max_time_s=100.0, clock=c) == 5


def test_warm_up_zero_medians_never_agree():
    # 0 0 0 0 1 1 1 1, window 2: a = 0 at calls 4-6 (skipped), 7: (0.5, 1), 8: (1, 1) -> 8
    c = ScriptedClock([0, 0, 0, 0, 1, 1, 1, 1])
    assert timing.warm_up(c.fn, min_time_s=0.0, window=2, max_time_s=100.0, clock=c) == 8


def test_warm_up_min_time_min_calls_and_max_time():
    # constant 1 s calls: the windows agree from call 4, but min_time_s = 6 s is reached at call 6 (not < 6)
    c = ScriptedClock([1.0])
    assert timing.warm_up(c.fn, min_time_s=6.0, window=2, max_time_s=100.0, clock=c) == 6
    # min_calls = 7 beats the windows too
    c = ScriptedClock([1.0])
    assert timing.warm_up(c.fn, min_time_s=0.0, window=2, min_calls=7, max_time_s=100.0, clock=c) == 7
    # alternating 1 s / 3 s, window 1: neighbours never agree; elapsed 1, 4, 5, 8, 9: max_time_s = 9 stops at 5
    c = ScriptedClock([1, 3] * 20)
    assert timing.warm_up(c.fn, min_time_s=0.0, window=1, max_time_s=9.0, clock=c) == 5
    # ... unless min_calls asks for more: 7 calls
    c = ScriptedClock([1, 3] * 20)
    assert timing.warm_up(c.fn, min_time_s=0.0, window=1, max_time_s=9.0, min_calls=7, clock=c) == 7
    # the sync runs inside each call's interval
    c = ScriptedClock([1.0])
    synced = []
    timing.warm_up(c.fn, lambda out: synced.append(out), min_time_s=0.0, window=1, max_time_s=100.0, clock=c)
    assert synced == [1, 2]


def test_warm_up_runs_at_least_min_time():
    c = FakeClock()
    n = timing.warm_up(c.work(2**-8), min_time_s=0.1, window=5, clock=c)
    # stable 3.9 ms calls: stops at the first call with elapsed >= 0.1 s: ceil(0.1 / 2**-8) = ceil(25.6) = 26
    assert n == 26


def test_warm_up_waits_until_two_windows_agree():
    c = FakeClock()
    durations = [2**-4] * 3 + [2**-6] * 100  # slow start (lazy init, clock ramp), then steady
    it = iter(durations)

    def fn():
        c.t += next(it)
    n = timing.warm_up(fn, min_time_s=0.1, window=5, tolerance=0.1, clock=c)
    # elapsed passes 0.1 s at call 3, but two windows need 10 calls. At call 10 the windows are calls 1-5
    # (slow, slow, slow, fast, fast: median slow) and 6-10 (fast): they differ. At call 11: calls 2-6
    # (slow, slow, fast, fast, fast: median fast) and 7-11 (fast) agree -> 11 calls
    assert n == 11


def test_warm_up_gives_up_at_max_time():
    c = FakeClock()
    k = [0]

    def alternating():
        k[0] += 1
        c.t += 0.01 if (k[0] // 5) % 2 else 0.03  # windows never agree
    n = timing.warm_up(alternating, min_time_s=0.0, max_time_s=0.5, window=5, clock=c)
    assert 0.5 <= c.t - 100.0 < 0.54 and n < 30


@pytest.mark.parametrize("kwargs, pattern", [
    ({"window": 0}, r"^window must be >= 1, got 0"),
    ({"min_calls": -1}, r"^min_calls must be >= 0, got -1"),
    ({"min_time_s": -1.0}, r"^min_time_s must be a finite number of seconds >= 0, got -1\.0"),
    ({"min_time_s": math.inf}, r"^min_time_s must be a finite number of seconds >= 0"),
    ({"min_time_s": 1.0, "max_time_s": 0.5}, r"^max_time_s must be >= min_time_s \(1\.0\), got 0\.5"),
    ({"max_time_s": math.inf}, r"^max_time_s must be >= min_time_s"),
    ({"tolerance": 0.0}, r"^tolerance must be > 0"),
])
def test_warm_up_errors(kwargs, pattern):
    with pytest.raises(ValueError, match=pattern):
        timing.warm_up(lambda: None, **kwargs)


def test_warm_up_default_bounds():
    # defaults: at least 0.1 s and windows of 5 within 10 %, at most 2 s
    assert (timing.WARMUP_MIN_S, timing.WARMUP_WINDOW, timing.WARMUP_TOLERANCE, timing.WARMUP_MAX_S) == (0.1, 5, 0.1, 2.0)
    c = ScriptedClock([0.125])                   # 10 calls = 1.25 s >= 0.1 s, then the windows agree
    assert timing.warm_up(c.fn, clock=c) == 10
    c = ScriptedClock([0.5, 1.5] * 20)          # never agree (window 5 is odd); elapsed reaches 2.0 at call 2
    assert timing.warm_up(c.fn, clock=c) == 2


def test_warm_up_edges():
    c = ScriptedClock([5.0])                   # one call already passes max_time_s: one call is enough by default
    assert timing.warm_up(c.fn, min_time_s=0.0, max_time_s=1.0, clock=c) == 1
    c = ScriptedClock([0.5])                   # min_time_s == max_time_s is allowed: stops at 1 s (call 2)
    assert timing.warm_up(c.fn, min_time_s=1.0, max_time_s=1.0, clock=c) == 2


# --- time_calls -------------------------------------------------------------------------------------------------
def test_time_calls_samples_are_call_plus_sync_exactly():
    c = FakeClock()
    s = timing.time_calls(c.work(3e-3), 2, 4, sync=c.work(2e-3, "sync"), clock=c)
    # each interval covers fn (3 ms) and sync (2 ms); warm-up calls are not samples
    assert s == pytest.approx([5e-3] * 4)
    assert c.log == ["fn", "sync"] * 6


def test_time_calls_without_sync_does_not_wait():
    c = FakeClock()
    assert timing.time_calls(c.work(1e-3), 0, 3, clock=c) == pytest.approx([1e-3] * 3)


def test_time_calls_counts_and_samples():
    c = ScriptedClock([5.0, 5.0, 1.0, 2.0, 3.0])                 # two untimed warm-up calls, then 1, 2, 3
    assert timing.time_calls(c.fn, 2, 3, clock=c) == [1.0, 2.0, 3.0]
    assert c.calls == 5
    c = ScriptedClock([1.0])
    extra = []

    def sync(out):
        extra.append(out)
        c.t += 0.5                                            # the sync's wait is inside the interval
    assert timing.time_calls(c.fn, 1, 2, sync=sync, clock=c) == [1.5, 1.5]
    assert extra == [1, 2, 3]                                 # warm-up calls are synced too
    assert timing.time_calls(c.fn, 0, np.int64(1), clock=c) == [1.0]
    with pytest.raises(ValueError, match=r"^reps must be >= 1, got 0"):
        timing.time_calls(c.fn, 0, 0, clock=c)
    with pytest.raises(ValueError, match=r"^warmup must be a whole number >= 0, got True"):
        timing.time_calls(c.fn, True, 1, clock=c)


@pytest.mark.parametrize("kwargs, name", [
    ({"warmup": -1, "reps": 5}, "warmup"),
    ({"warmup": 1, "reps": 2.5}, "reps"),
])
def test_time_calls_bad_counts_name_the_argument(kwargs, name):
    with pytest.raises(ValueError, match=name):
        timing.time_calls(lambda: None, **kwargs)


def test_time_calls_real_clock_brackets_a_sleep():
    # lower bound: the sleep is inside; upper bound: the samples are this sleep, not something else
    s = timing.time_calls(lambda: time.sleep(0.004), 1, 5)
    assert len(s) == 5 and 0.004 <= statistics.median(s) < 0.04


def test_time_calls_puts_sync_inside_the_timed_interval():
    def slow_sync(_):
        time.sleep(0.005)
    t = timing.summarize(timing.time_calls(lambda: None, 0, 5, sync=slow_sync), warn=False)
    assert t.median_s >= 0.005


def test_time_calls_gc_state():
    seen = []
    c = ScriptedClock([1.0])

    def fn():
        seen.append(gc.isenabled())
        return c.fn()
    was = gc.isenabled()
    try:
        gc.enable()
        timing.time_calls(fn, 1, 2, clock=c)
        assert seen == [True, False, False] and gc.isenabled()   # warm-up with GC, timed calls without
        gc.disable()
        timing.time_calls(fn, 0, 1, clock=c)
        assert not gc.isenabled()                                # stays off when it was off
    finally:
        (gc.enable if was else gc.disable)()
    with timing.gc_paused():
        assert not gc.isenabled()


def test_time_calls_time_based_warmup():
    c = FakeClock()
    timing.time_calls(c.work(2**-6), 0, 1, clock=c, warmup_s=0.1)
    # 15.6 ms calls (binary-exact): >= 0.1 s after 7 calls, but two windows of 5 need 10 calls; + 1 timed
    assert len(c.log) == 11


def test_time_calls_time_based_warm_up_runs_up_to_four_times_warmup_s():
    # warmup_s = 1: warm_up(min 1 s, max max(2, 4 x 1) = 4 s). Alternating 1 s / 3 s never agree:
    # elapsed 1, 4 -> stops after 2 calls; then 1 timed call
    c = ScriptedClock([1, 3] * 20)
    timing.time_calls(c.fn, 0, 1, clock=c, warmup_s=1.0)
    assert c.calls == 3
    # constant 0.5 s calls would agree at call 10 (two windows of 5), but 8 calls already reach the 4 s maximum
    c = ScriptedClock([0.5])
    timing.time_calls(c.fn, 0, 1, clock=c, warmup_s=1.0)
    assert c.calls == 9                                        # elapsed 4.0 s >= 4 s at call 8 (max), + 1 timed
    c = ScriptedClock([0.125])
    timing.time_calls(c.fn, 0, 1, clock=c, warmup_s=1.0)
    assert c.calls == 11                                       # 1.25 s at call 10 (windows agree), + 1 timed


def test_time_based_warm_up_uses_min_and_four_times_max():
    # warmup_s = 2: at least 2 s, at most max(2, 4 x 2) = 8 s.
    # constant 0.125 s: the windows agree from call 10, but 2 s are reached only at call 16 -> 16 + 1 timed call
    c = ScriptedClock([0.125])
    timing.time_calls(c.fn, 0, 1, clock=c, warmup_s=2.0)
    assert c.calls == 17
    # 0.5 s / 1.5 s alternating never agree (odd window): elapsed 0.5, 2, 2.5, 4, 4.5, 6, 6.5, 8 -> 8 + 1
    c = ScriptedClock([0.5, 1.5] * 50)
    timing.time_calls(c.fn, 0, 1, clock=c, warmup_s=2.0)
    assert c.calls == 9
    # the same for each function of interleaved
    c = ScriptedClock([0.125])
    timing.interleaved({"a": c.fn}, 0, 1, 1, warmup_s=2.0, clock=c)
    assert c.calls == 17
    c = ScriptedClock([0.5, 1.5] * 50)
    timing.interleaved({"a": c.fn}, 0, 1, 1, warmup_s=2.0, clock=c)
    assert c.calls == 9


def test_time_calls_syncs_its_warm_up_calls():
    # warmup_s = 1 with 1 s / 3 s calls: 2 warm-up calls (4 s = max), then 1 timed call; each is synced
    c = ScriptedClock([1, 3] * 20)
    synced = []
    timing.time_calls(c.fn, 0, 1, sync=synced.append, clock=c, warmup_s=1.0)
    assert synced == [1, 2, 3]


# --- batched, time_batches --------------------------------------------------------------------------------------
def test_batched_makes_batch_calls_and_returns_the_last_output():
    c = ScriptedClock([1.0])
    group = timing.batched(c.fn, 3)
    assert group() == 3 and c.calls == 3          # three calls, the third one's output
    assert group() == 6 and c.calls == 6
    assert timing.batched(c.fn, 1)() == 7 and c.calls == 7
    for bad, pattern in ((0, r"^batch must be >= 1, got 0"), (2.0, r"^batch must be a whole number >= 1")):
        with pytest.raises(ValueError, match=pattern):
            timing.batched(c.fn, bad)


def test_time_batches_is_a_group_and_one_sync_per_sample():
    # call k takes 1, 2, 3, ... s (the last repeats); 2 samples of 3 calls: (1 + 2 + 3) / 3 = 2 and (4 + 5 + 5) / 3,
    # each with one 0.5 s sync on the last output of its group: (6 + 0.5) / 3 and (14 + 0.5) / 3
    c = ScriptedClock([1.0, 2.0, 3.0, 4.0, 5.0])
    synced = []

    def sync(out):
        synced.append(out)
        c.t += 0.5
    s = timing.time_batches(c.fn, 2, 3, sync=sync, clock=c)
    assert s == pytest.approx([6.5 / 3, 14.5 / 3])
    assert synced == [3, 6] and c.calls == 6                  # no warm-up calls, one sync per group
    c = ScriptedClock([2.0])
    assert timing.time_batches(c.fn, 3, 4, clock=c) == pytest.approx([2.0] * 3)
    with pytest.raises(ValueError, match=r"^reps must be >= 1, got 0"):
        timing.time_batches(c.fn, 0, 4, clock=c)
    with pytest.raises(ValueError, match=r"^batch must be >= 1, got 0"):
        timing.time_batches(c.fn, 1, 0, clock=c)


# --- time_rounds, interleaved, LastOutput -----------------------------------------------------------------------
def _stepping(clock, log, name, seconds):
    """A call that logs its name and advances the scripted clock by ``seconds``."""
    def f():
        log.append(name)
        clock.t += seconds
        return name
    return f


def test_time_rounds_order_and_samples():
    c = ScriptedClock([1.0])
    log = []
    out = timing.time_rounds({"a": _stepping(c, log, "a", 1.0), "b": _stepping(c, log, "b", 2.0)}, 3, 2, clock=c)
    # rounds alternate the order: a a b b | b b a a | a a b b
    assert log == list("aabbbbaaaabb")
    assert out == {"a": [1.0] * 6, "b": [2.0] * 6}
    synced = []
    timing.time_rounds({"a": _stepping(c, log, "a", 1.0)}, 1, 2, sync=synced.append, clock=c)
    assert synced == ["a", "a"]
    with pytest.raises(ValueError, match=r"^fns must name at least one function"):
        timing.time_rounds({}, 1, 1, clock=c)
    with pytest.raises(ValueError, match=r"^rounds must be >= 1, got 0"):
        timing.time_rounds({"a": c.fn}, 0, 1, clock=c)
    with pytest.raises(ValueError, match=r"^reps_per_round must be >= 1, got 0"):
        timing.time_rounds({"a": c.fn}, 1, 0, clock=c)


def test_interleaved_splits_reps_and_alternates():
    c = ScriptedClock([1.0])
    log = []
    out = timing.interleaved({"a": _stepping(c, log, "a", 1.0), "b": _stepping(c, log, "b", 3.0)}, warmup=1, reps=7,
                             rounds=3, warmup_s=0.0, clock=c)
    # warm-up: one call each (a, b); 7 reps over 3 rounds = 3 + 2 + 2; round 0 a then b, round 1 b then a, round 2 a, b
    assert log == ["a", "b"] + list("aaabbb") + list("bbaa") + list("aabb")
    assert out == {"a": [1.0] * 7, "b": [3.0] * 7}
    with pytest.raises(ValueError, match=r"^rounds must be <= reps \(3\), got 4"):
        timing.interleaved({"a": c.fn}, 0, 3, 4, clock=c)
    for kwargs, pattern in (({"warmup": -1}, r"^warmup must be >= 0"), ({"reps": 0}, r"^reps must be >= 1"),
                            ({"rounds": 0}, r"^rounds must be >= 1")):
        args = dict(warmup=0, reps=2, rounds=1) | kwargs
        with pytest.raises(ValueError, match=pattern):
            timing.interleaved({"a": c.fn}, clock=c, **args)


def test_interleaved_time_based_warm_up_per_function():
    # warmup_s = 1 s: each function warms up for max(2, 4) = 4 s at most; 1 s / 3 s alternating never agree,
    # so each stops after 2 calls (elapsed 4 s). Then 2 reps in 1 round.
    c = ScriptedClock([1, 3] * 40)
    timing.interleaved({"a": c.fn, "b": c.fn}, warmup=0, reps=2, rounds=1, warmup_s=1.0, clock=c)
    assert c.calls == 2 + 2 + 2 * 2


def test_interleaved_allows_one_rep_per_round():
    c = ScriptedClock([1.0])
    assert timing.interleaved({"a": c.fn}, 0, 3, 3, warmup_s=0.0, clock=c) == {"a": [1.0, 1.0, 1.0]}


def test_interleaving_shares_a_slow_spell():
    """Calls 41-70 of 80 are 5x slow (another process). Back to back, the copy loop (calls 41-80) gets all 30
    slow calls and its median is 5x the device loop's; interleaved in 8 rounds of 5, each boundary gets 15 of
    its 40 calls slow (worked out round by round: d 41-45, 56-60, 61-65; x 46-50, 51-55, 66-70), so both
    medians stay 1 ms and the ratio is 1 -- the issue's with-copies < device-resident on a CPU."""
    def run(interleave):
        c = FakeClock()
        n = [0]

        def f():
            n[0] += 1
            c.t += 1e-3 * (5 if 41 <= n[0] <= 70 else 1)
        fns = {"d": f, "x": f}
        if interleave:
            s = timing.interleaved(fns, 0, 40, 8, warmup_s=0.0, clock=c)
        else:
            s = {k: timing.time_calls(v, 0, 40, clock=c) for k, v in fns.items()}
        return statistics.median(s["x"]) / statistics.median(s["d"])
    assert run(interleave=False) == pytest.approx(5.0)
    assert run(interleave=True) == pytest.approx(1.0)


def test_last_output_keeps_the_latest():
    it = iter([10, 20, 30])
    f = timing.LastOutput(lambda: next(it))
    assert (f.value, f.calls) == (None, 0)
    assert f() == 10 and f() == 20
    assert (f.value, f.calls) == (20, 2)
    # wrapped around a timed call: 2 warm-up + 3 timed calls, the last output is the fifth
    k = iter(range(10))
    g = timing.LastOutput(lambda: next(k))
    timing.time_calls(g, 2, 3)
    assert g.value == 4 and g.calls == 5


def test_nan_or_negative_timing_options_are_refused():
    import math

    import pytest
    from xpucalc.bench import timing
    for bad in (math.nan, -1):
        with pytest.raises(ValueError, match=r"^warmup_s "):
            timing.interleaved({"a": lambda: None}, 0, 2, 1, warmup_s=bad)
        with pytest.raises(ValueError, match=r"^budget_s "):
            timing.calls_to_fill(0.01, bad)
    with pytest.raises(ValueError, match=r"^warn must be True or False"):
        timing.summarize([1.0], warn="False")
