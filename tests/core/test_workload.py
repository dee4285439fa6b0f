"""xpucalc.core.workload: FLOP and bytes of a workload and of the linear layer Y = ReLU(XW + b), by hand.

The common example of the Week 5 source (§2.2, §11.2) is reproduced from its printed output; the other
expected values are derived in the comment next to them from the inputs, never from xpucalc's own output.
"""
import math
import re

from hypothesis import given, settings
from hypothesis import strategies as st
import pytest

import xpucalc as xc

CASES = [
    ("flops", lambda: xc.Workload("w", 0, 10)),
    ("bytes", lambda: xc.Workload("w", 10, -1)),
    ("m", lambda: xc.linear_layer(0, 1024, 1024, 2)),
    ("k", lambda: xc.linear_layer(1, 10.5, 1024, 2)),
    ("dtype_bytes", lambda: xc.linear_layer(1, 1024, 1024, 0)),
]


@pytest.mark.parametrize("name, call", CASES, ids=[f"{i}-{n}" for i, (n, _) in enumerate(CASES)])
def test_bad_input_names_the_argument(name, call):
    # the argument's name as a whole word ("XXpower_wXX" or "None" would not do)
    with pytest.raises(ValueError, match=rf"\b{re.escape(name)}\b"):
        call()


def test_the_argument_named_in_the_message_is_the_right_one():
    with pytest.raises(ValueError, match=r"^n must be a whole number >= 1"):
        xc.linear_layer(1, 1, 0, 2)


def test_linear_layer_with_three_different_sizes():
    # m=3, k=5, n=7: X 15, W 35, b 7, Y 21 -> 78 elements moved; 2mkn = 210 FLOP; epilogue 2mn = 42
    w = xc.linear_layer(3, 5, 7, 2)
    assert w.elements == {"X": 15, "W": 35, "b": 7, "Y": 21}
    assert w.shapes == {"X": (3, 5), "W": (5, 7), "b": (7,), "Y": (3, 7)}
    assert (w.moved_elements, w.flops, w.epilogue_ops, w.bytes) == (78, 210, 42, 156)
    assert w.intensity == pytest.approx(210 / 156)
    assert (w.m, w.k, w.n, w.dtype_bytes) == (3, 5, 7, 2)
    assert "M=3" in w.name and "2 B/원소" in w.name
    # INT4 weights: half a byte per element -> 39 bytes
    assert xc.linear_layer(3, 5, 7, 0.5).bytes == 39
    assert xc.linear_layer(3.0, 5, 7, 4).bytes == 312  # 78 x 4; a whole float is accepted as a count
    assert xc.Workload("w", 6, 3).intensity == 2.0
    assert not xc.Workload("w", 6, 3).sparse


def test_workload_numbers_are_stored_as_floats():
    w = xc.Workload("w", 6, 3)
    assert type(w.flops) is float and type(w.bytes) is float
    d = xc.Device("d", 2, 1, memory=3)
    assert [type(v) for v in (d.peak_flops, d.bandwidth, d.memory)] == [float, float, float]
    assert xc.linear_layer(3, 5, 7, 4).dtype_bytes == 4


@pytest.mark.parametrize("m, flops, q2, q4, i2, i4", [
    (128, 268_435_456, 2_623_488, 5_246_976, "102.32", "51.16"),
    (1, 2_097_152, 2_103_296, 4_206_592, "1.00", "0.50"),
])
def test_common_example(m, flops, q2, q4, i2, i4):
    w2, w4 = xc.linear_layer(m, 1024, 1024, 2), xc.linear_layer(m, 1024, 1024, 4)
    assert w2.flops == flops == w4.flops
    assert w2.bytes == q2
    assert w4.bytes == q4
    assert f"{w2.intensity:.2f}" == i2
    assert f"{w4.intensity:.2f}" == i4


def test_common_example_elements_and_epilogue():
    # §2.2 table: 1,311,744 and 1,051,648 moved elements; 131,072 and 1,024 bias/ReLU ops each
    big, small = xc.linear_layer(128, 1024, 1024, 2), xc.linear_layer(1, 1024, 1024, 2)
    assert big.moved_elements == 1_311_744
    assert small.moved_elements == 1_051_648
    assert big.epilogue_ops == 2 * 131_072
    assert small.epilogue_ops == 2 * 1_024
    assert big.shapes == {"X": (128, 1024), "W": (1024, 1024), "b": (1024,), "Y": (128, 1024)}
    # "about 0.80x" fewer elements when M drops from 128 to 1
    assert round(small.moved_elements / big.moved_elements, 2) == 0.80


@settings(deadline=None)  # timing varies on a loaded machine; the properties do not
@given(st.integers(1, 4096), st.integers(1, 4096), st.integers(1, 4096), st.sampled_from([1, 2, 4]))
def test_linear_layer_counts_scale_as_the_shapes_say(m, k, n, s):
    # relations between layers instead of the code's own formula: one more row of X adds k
    # multiply-adds per output column (2kn FLOP) and one row of X and of Y (k + n elements);
    # doubling the element size doubles the bytes and halves the intensity.
    w, taller = xc.linear_layer(m, k, n, s), xc.linear_layer(m + 1, k, n, s)
    assert taller.flops - w.flops == 2 * k * n
    assert taller.bytes - w.bytes == s * (k + n)
    assert xc.linear_layer(m, k, n, 2 * s).bytes == 2 * w.bytes
    assert math.isclose(xc.linear_layer(m, k, n, 2 * s).intensity, w.intensity / 2)
    # the 1 x 1 x 1 layer by hand: 2 FLOP; x, w, b, y moved once -> 4 elements
    one = xc.linear_layer(1, 1, 1, s)
    assert (one.flops, one.bytes) == (2, 4 * s)
    assert w.flops == one.flops * m * k * n
