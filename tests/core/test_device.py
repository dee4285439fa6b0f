"""xpucalc.core.device: a device's roofs and capacity, the explicit sparse-to-dense step, and bad inputs.

Every expected value is derived in the comment next to it from the inputs, never from xpucalc's own output.
"""
import math
import re

import pytest

import xpucalc as xc

T = 1e12

CASES = [
    ("peak_flops", lambda: xc.Device("x", 0, 1e12)),
    ("peak_flops", lambda: xc.Device("x", -1e12, 1e12)),
    ("bandwidth", lambda: xc.Device("x", 1e12, math.nan)),
    ("bandwidth", lambda: xc.Device("x", 1e12, math.inf)),
    ("memory", lambda: xc.Device("x", 1e12, 1e12, memory=-5)),
]


@pytest.mark.parametrize("name, call", CASES, ids=[f"{i}-{n}" for i, (n, _) in enumerate(CASES)])
def test_bad_input_names_the_argument(name, call):
    # the argument's name as a whole word ("XXpower_wXX" or "None" would not do)
    with pytest.raises(ValueError, match=rf"\b{re.escape(name)}\b"):
        call()


def test_booleans_are_not_numbers():
    with pytest.raises(ValueError, match="peak_flops"):
        xc.Device("x", True, 1e12)


def test_fits_at_an_exact_fit_and_one_byte_over():
    d = xc.Device("d", 1, 1, memory=16e9)
    assert d.fits(16e9)                     # exactly the capacity: fits (<=)
    assert not d.fits(16_000_000_001)       # one byte more: does not
    assert d.fits(1)
    with pytest.raises(ValueError, match="memory capacity is unknown"):
        xc.Device("d", 1, 1).fits(1)
    with pytest.raises(ValueError, match=r"^resident_bytes must be > 0"):
        d.fits(0)


def test_dense_keeps_everything_but_the_peak():
    s = xc.Device("H100 sparse", 1979 * T, 3.35 * T, 80e9, precision="bf16", sparse=True, key="h100-sxm")
    d = s.dense()
    assert d.peak_flops == pytest.approx(989.5 * T)  # 1979 / 2
    assert (d.name, d.bandwidth, d.memory, d.precision, d.sparse, d.key) == (
        "H100 sparse", 3.35 * T, 80e9, "bf16", False, "h100-sxm")
    assert s.dense(4).peak_flops == pytest.approx(494.75 * T)  # 1979 / 4
    with pytest.raises(ValueError, match=r"^ratio must be > 0"):
        s.dense(0)
    with pytest.raises(ValueError, match="already dense"):
        d.dense()
    with pytest.raises(ValueError, match=r"^name must be a non-empty string"):
        xc.Device("", 1, 1)
    with pytest.raises(ValueError, match=r"^memory must be > 0"):
        xc.Device("x", 1, 1, memory=0)


def test_device_default_is_not_assumed_and_dense_keeps_the_reading():
    assert xc.Device("x", 1e12, 1e12).sparsity_assumed is False
    assert xc.Device("x", 2e12, 1e12, sparse=True).dense().sparsity_assumed is False
    # a peak of unstated sparsity read as sparse on purpose: halving it keeps that reading visible
    assumed = xc.Device("npu", 48e12, 1e11, sparse=True, sparsity_assumed=True).dense()
    assert (assumed.peak_flops, assumed.sparse, assumed.sparsity_assumed) == (24e12, False, True)
