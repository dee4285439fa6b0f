"""xpucalc.core.endtoend: a path's per-batch and first-run time, and when one path overtakes another.

Example 2 and the discussion question of the Week 5 source (§11.2, §15.3) are reproduced from its printed output;
the other expected values are derived in the comment next to them from the inputs.
"""
import re

from hypothesis import assume, given, settings
from hypothesis import strategies as st
import pytest

import xpucalc as xc

CASES = [
    ("compile_a", lambda: xc.breakeven_runs(-1, 0.1, 0, 0.2)),
    ("per_run_b", lambda: xc.breakeven_runs(1, 0.1, 0, float("nan"))),
    ("device_s", lambda: xc.Path("p", -1, 0, 0)),
]


@pytest.mark.parametrize("name, call", CASES, ids=[f"{i}-{n}" for i, (n, _) in enumerate(CASES)])
def test_bad_input_names_the_argument(name, call):
    # the argument's name as a whole word ("XXpower_wXX" or "None" would not do)
    with pytest.raises(ValueError, match=rf"\b{re.escape(name)}\b"):
        call()


def test_path_total_includes_the_compile_time():
    # 가: 4 + 9 + 2 = 15 ms a batch, compile 30 s. 1,000 batches: 30 + 15 = 45 s; 0 batches: 30 s.
    ga = xc.Path("가", 4e-3, 9e-3, 2e-3, compile_s=30)
    assert ga.total_s(1000) == pytest.approx(45.0)
    assert ga.total_s(0) == 30.0
    assert ga.total_s(1) == pytest.approx(ga.first_run_s) == pytest.approx(30.015)
    assert ga.stages() == {"장치 연산": 4e-3, "호스트↔장치 전송": 9e-3, "호스트 전·후처리": 2e-3}
    for bad in (-1, 2.5, True, "3"):
        with pytest.raises(ValueError, match=r"^runs must be a whole number"):
            ga.total_s(bad)
    with pytest.raises(ValueError, match=r"^compile_s must be >= 0"):
        xc.Path("p", 1, 0, 0, compile_s=-1)
    with pytest.raises(ValueError, match=r"^empty: device_s \+ transfer_s \+ host_s must be > 0"):
        xc.Path("empty", 0, 0, 0)
    # a path with only transfer time is valid (zero device time)
    assert xc.Path("copy", 0, 1e-3, 0).per_batch_s == 1e-3


@pytest.mark.parametrize("args, expected", [
    # a: 1 s + 1 s/run, b: 0 s + 2 s/run -> equal at n = 1 (2 = 2), a strictly lower from n = 2
    ((1, 1, 0, 2), 2),
    # a: 0 + 1/run, b: 0 + 1/run -> never strictly lower
    ((0, 1, 0, 1), None),
    # a: 10 + 1/run, b: 0 + 3/run -> a lower when 10 + n < 3n, n > 5 -> 6 (n = 5 is a tie: 15 = 15)
    ((10, 1, 0, 3), 6),
    # a already lower at n = 1: 0 + 1 < 0 + 3
    ((0, 1, 0, 3), 1),
    # a: 0.5 + 1, b: 0 + 2 -> 1.5 < 2 at n = 1
    ((0.5, 1, 0, 2), 1),
])
def test_breakeven_runs_at_ties(args, expected):
    assert xc.breakeven_runs(*args) == expected


@pytest.mark.parametrize("args, expected", [
    ((30, 0.015, 5, 0.020), 5000.0),  # (30 - 5) / (0.020 - 0.015)
    ((5, 0.020, 30, 0.015), 5000.0),  # same pair, sides swapped
    ((30, 0.020, 5, 0.015), None),    # a starts later and loses per run: they never meet (n = -5000)
    ((5, 0.020, 5, 0.015), 0.0),      # equal at the start and never again: n = 0 is the meeting point
    ((5, 0.015, 30, 0.015), None),    # same rate: parallel lines
])
def test_breakeven_point_by_hand(args, expected):
    assert xc.breakeven_point(*args) == (expected if expected is None else pytest.approx(expected))


def test_breakeven_arguments_are_named():
    for i, name in enumerate(("compile_a", "per_run_a", "compile_b", "per_run_b")):
        args = [1.0, 1.0, 1.0, 1.0]
        args[i] = -1.0
        with pytest.raises(ValueError, match=rf"^{name} must be >= 0"):
            xc.breakeven_runs(*args)
        with pytest.raises(ValueError, match=rf"^{name} must be >= 0"):
            xc.breakeven_point(*args)


def test_example_2_paths():
    ga = xc.Path("경로 가", device_s=4e-3, transfer_s=9e-3, host_s=2e-3, compile_s=30)
    na = xc.Path("경로 나", device_s=7e-3, transfer_s=2e-3, host_s=2e-3, compile_s=5)
    assert ga.per_batch_s * 1e3 == pytest.approx(15)
    assert na.per_batch_s * 1e3 == pytest.approx(11)
    assert f"{ga.first_run_s:.3f}" == "30.015"
    assert f"{na.first_run_s:.3f}" == "5.011"


def test_discussion_breakeven():
    # §15.3 Q4: 30 s + 15 ms/batch vs 5 s + 20 ms/batch. Equal at 25 s / 5 ms = 5,000 batches;
    # strictly lower from batch 5,001 on.
    assert xc.breakeven_point(30, 0.015, 5, 0.020) == pytest.approx(5000)
    assert xc.breakeven_runs(30, 0.015, 5, 0.020) == 5001
    assert xc.breakeven_runs(5, 0.020, 30, 0.015) == 1
    assert xc.breakeven_runs(30, 0.020, 5, 0.015) is None


def test_breakeven_from_path_totals_is_exact():
    # 가 (4+9+2 = 15 ms) vs 나 (7+2+2 = 11 ms) with compile 5 s vs 30 s swapped: 25 s / 4 ms = 6,250 equal -> 6,251
    fast_compile = xc.Path("a", 7e-3, 2e-3, 2e-3, compile_s=30)
    slow = xc.Path("b", 4e-3, 9e-3, 2e-3, compile_s=5)
    assert fast_compile.per_batch_s == 0.011
    assert xc.breakeven_runs(fast_compile.compile_s, fast_compile.per_batch_s, slow.compile_s, slow.per_batch_s) == 6251


@settings(deadline=None)  # timing varies on a loaded machine; the properties do not
@given(st.floats(0, 100), st.floats(1e-4, 1), st.floats(0, 100), st.floats(1e-4, 1))
def test_breakeven_runs_is_the_first_run_where_a_is_lower(ca, pa, cb, pb):
    n = xc.breakeven_runs(ca, pa, cb, pb)
    if n is None:
        assert pa >= pb and ca + pa >= cb + pb
        return
    assume(n < 10**7)
    # totals computed independently, with a tolerance for float rounding at the tie
    assert ca + n * pa < cb + n * pb + 1e-9
    if n > 1:
        assert ca + (n - 1) * pa >= cb + (n - 1) * pb - 1e-9
