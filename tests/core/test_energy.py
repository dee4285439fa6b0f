"""xpucalc.core.energy: energy and cost per request, by hand (Exercise 3 of the Week 5 source)."""
import math
import re

import pytest

import xpucalc as xc

CASES = [
    ("power_w", lambda: xc.energy_per_request(-400, 100)),
    ("throughput_rps", lambda: xc.energy_per_request(400, 0)),
    ("price_per_hour", lambda: xc.cost_per_request(math.inf, 10)),
]


@pytest.mark.parametrize("name, call", CASES, ids=[f"{i}-{n}" for i, (n, _) in enumerate(CASES)])
def test_bad_input_names_the_argument(name, call):
    # the argument's name as a whole word ("XXpower_wXX" or "None" would not do)
    with pytest.raises(ValueError, match=rf"\b{re.escape(name)}\b"):
        call()


def test_energy_and_cost_by_hand():
    assert xc.energy_per_request(400, 100) == pytest.approx(4.0)       # 400 J/s / 100 req/s
    assert xc.energy_per_request(300, 1.5) == pytest.approx(200.0)     # 300 / 1.5
    assert xc.cost_per_request(3.6, 1) == pytest.approx(0.001)         # 3.6 / (1 x 3600)
    assert xc.cost_per_request(4.0, 100) == pytest.approx(4 / 360_000)  # 4 / (100 x 3600)
    for call, name in [(lambda: xc.energy_per_request(0, 1), "power_w"),
                       (lambda: xc.energy_per_request(1, -1), "throughput_rps"),
                       (lambda: xc.cost_per_request(-2, 1), "price_per_hour"),
                       (lambda: xc.cost_per_request(2, 0), "throughput_rps")]:
        with pytest.raises(ValueError, match=rf"^{name} must be > 0"):
            call()


@pytest.mark.parametrize("power, rps, joules", [(400, 100, 4.0), (250, 50, 5.0)])
def test_exercise_3_energy(power, rps, joules):
    assert xc.energy_per_request(power, rps) == pytest.approx(joules)
