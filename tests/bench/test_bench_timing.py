"""xpucalc.bench.timing with a fake clock: exact samples, warm-up, interleaving, statistics (no framework needed)."""
from __future__ import annotations

import gc
import statistics
import time

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


# --------------------------------------------------------------------------- time_calls

def test_time_calls_samples_are_call_plus_sync_exactly():
    c = FakeClock()
    s = timing.time_calls(c.work(3e-3), 2, 4, sync=c.work(2e-3, "sync"), clock=c)
    # each interval covers fn (3 ms) and sync (2 ms); warm-up calls are not samples
    assert s == pytest.approx([5e-3] * 4)
    assert c.log == ["fn", "sync"] * 6


def test_time_calls_without_sync_does_not_wait():
    c = FakeClock()
    assert timing.time_calls(c.work(1e-3), 0, 3, clock=c) == pytest.approx([1e-3] * 3)


def test_time_calls_real_clock_brackets_a_sleep():
    # lower bound: the sleep is inside; upper bound: the samples are this sleep, not something else
    s = timing.time_calls(lambda: time.sleep(0.004), 1, 5)
    assert len(s) == 5 and 0.004 <= statistics.median(s) < 0.04


def test_time_calls_pauses_gc_and_restores_it():
    seen = []
    timing.time_calls(lambda: seen.append(gc.isenabled()), 1, 3)
    assert seen == [True, False, False, False] and gc.isenabled()


def test_time_calls_time_based_warmup():
    c = FakeClock()
    timing.time_calls(c.work(2**-6), 0, 1, clock=c, warmup_s=0.1)
    # 15.6 ms calls (binary-exact): >= 0.1 s after 7 calls, but two windows of 5 need 10 calls; + 1 timed
    assert len(c.log) == 11


# --------------------------------------------------------------------------- warm-up

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


@pytest.mark.parametrize("kwargs, name", [({"window": 0}, "window"), ({"min_time_s": -1}, "min_time_s"),
                                          ({"max_time_s": 0.01, "min_time_s": 0.1}, "max_time_s"),
                                          ({"tolerance": 0}, "tolerance")])
def test_warm_up_bad_input(kwargs, name):
    with pytest.raises(ValueError, match=name):
        timing.warm_up(lambda: None, **kwargs)


# --------------------------------------------------------------------------- interleaving

def test_time_rounds_alternates_order():
    c = FakeClock()
    s = timing.time_rounds({"a": c.work(1e-3, "a"), "b": c.work(2e-3, "b")}, 3, 2, clock=c)
    assert c.log == ["a", "a", "b", "b", "b", "b", "a", "a", "a", "a", "b", "b"]
    assert s == {"a": pytest.approx([1e-3] * 6), "b": pytest.approx([2e-3] * 6)}


def test_interleaved_splits_reps_over_rounds_and_warms_up():
    c = FakeClock()
    s = timing.interleaved({"d": c.work(1e-3, "d"), "x": c.work(1e-3, "x")}, 1, 7, 3, warmup_s=0.0, clock=c)
    assert len(s["d"]) == len(s["x"]) == 7
    timed = c.log[2:]  # one warm-up call of each first
    assert c.log[:2] == ["d", "x"]
    # 7 = 3 + 2 + 2 per round, order alternating
    assert timed == ["d"] * 3 + ["x"] * 3 + ["x"] * 2 + ["d"] * 2 + ["d"] * 2 + ["x"] * 2


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


def test_rounds_must_not_exceed_reps():
    with pytest.raises(ValueError, match="rounds"):
        timing.interleaved({"a": lambda: None}, 0, 2, 3)


def test_last_output_keeps_the_latest_value():
    k = iter(range(10))
    f = timing.LastOutput(lambda: next(k))
    timing.time_calls(f, 2, 3)
    assert f.value == 4 and f.calls == 5


# --------------------------------------------------------------------------- statistics

def test_quantile_and_p10_by_hand():
    xs = [float(i) for i in range(1, 11)]  # 1..10: p10 at position 0.9 -> 1 + 0.9 = 1.9
    t = timing.summarize(xs, warn=False)
    assert t.p10_s == pytest.approx(1.9) and t.min_s == 1.0 and t.median_s == 5.5
    assert t.p10_s == pytest.approx(np.percentile(xs, 10))  # a second method
    assert timing.quantile([2.0], 0.5) == 2.0
    with pytest.raises(ValueError, match="q"):
        timing.quantile([1.0], 1.5)


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


def test_spread_label_flags():
    assert timing.summarize([1.0] * 10, warn=False).spread_label() == "0%"
    lab = timing.summarize([1e-3] * 20 + [5e-3] * 10, warn=False).spread_label()
    assert "불안정" in lab and "두 무리" in lab
