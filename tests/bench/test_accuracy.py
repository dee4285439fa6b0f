"""xpucalc.bench.accuracy: inputs, the float64 ground truth, tolerances and the verdict, by hand.

No framework here: ``tools/mutation`` runs this file, and mutmut's workers must not import torch or jax.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

from xpucalc.bench import accuracy


def test_unit_roundoff_and_tolerances():
    # u = 2^-p with p significand bits incl. the implicit one: FP32 24, BF16 8
    assert accuracy.UNIT_ROUNDOFF == {"fp32": 2.0**-24, "bf16": 2.0**-8}
    assert accuracy.TOLERANCE == {"fp32": 1e-4, "bf16": 0.0625}


def test_make_inputs_shapes_and_scales():
    x, w, b = accuracy.make_inputs(64, 1024, 512, seed=1)
    assert (x.shape, w.shape, b.shape) == ((64, 1024), (1024, 512), (512,))
    assert x.dtype == w.dtype == b.dtype == np.float32
    # X ~ N(0, 1), W ~ N(0, 1/k) (std 1/32), b ~ N(0, 0.01) (std 0.1); each entry of XW is ~ N(0, 1)
    assert np.std(x) == pytest.approx(1.0, rel=0.02)
    assert np.std(w) == pytest.approx(1 / 32, rel=0.02)
    assert np.std(b) == pytest.approx(0.1, rel=0.1)
    assert np.std(x.astype(np.float64) @ w) == pytest.approx(1.0, rel=0.05)
    x2, w2, b2 = accuracy.make_inputs(64, 1024, 512, seed=1)
    assert np.array_equal(x, x2) and np.array_equal(w, w2) and np.array_equal(b, b2)
    assert not np.array_equal(x, accuracy.make_inputs(64, 1024, 512, seed=2)[0])
    # defaults: k = n = 1024, seed 0
    xd, wd, bd = accuracy.make_inputs(2)
    assert (xd.shape, wd.shape, bd.shape) == ((2, 1024), (1024, 1024), (1024,))
    assert np.array_equal(xd, accuracy.make_inputs(2, 1024, 1024, seed=0)[0])
    for args, name in (((0,), "m"), ((2, 0), "k"), ((2, 4, 0), "n")):
        with pytest.raises(ValueError, match=rf"^{name} must be a whole number"):
            accuracy.make_inputs(*args)


def test_make_inputs_draws_float32_normals_in_order():
    # a second method: the same generator drawn by hand, X then W then b, all as float32 normals
    rng = np.random.default_rng(7)
    x = rng.standard_normal((3, 16), dtype=np.float32)
    w = rng.standard_normal((16, 5), dtype=np.float32) / np.float32(4.0)       # sqrt(16) = 4
    b = np.float32(0.1) * rng.standard_normal(5, dtype=np.float32)
    gx, gw, gb = accuracy.make_inputs(3, 16, 5, seed=7)
    assert np.array_equal(gx, x) and np.allclose(gw, w, rtol=1e-6, atol=0) and np.allclose(gb, b, rtol=1e-6, atol=0)


def test_reference_output_by_hand_in_float64():
    x = np.array([[1.0, -2.0]], dtype=np.float32)
    w = np.array([[1.0, 0.0], [0.0, 1.0]], dtype=np.float32)
    b = np.array([0.5, -0.5], dtype=np.float32)
    # [1, -2] + [0.5, -0.5] = [1.5, -2.5] -> ReLU [1.5, 0]
    y = accuracy.reference_output(x, w, b)
    assert y.dtype == np.float64 and y.tolist() == [[1.5, 0.0]]
    # 4097 x 4097 = 16,785,409 needs 25 significand bits: exact in float64, not in float32
    big = np.array([[4097.0]], dtype=np.float32)
    assert accuracy.reference_output(big, big, np.zeros(1, np.float32)).tolist() == [[16_785_409.0]]


def test_accuracy_verdict_boundary():
    assert accuracy.Accuracy(0.0625, 0.0625).passed                     # equal to the tolerance passes
    assert accuracy.Accuracy(0.0625, 0.0625).verdict == "통과"
    assert not accuracy.Accuracy(0.0626, 0.0625).passed
    assert accuracy.Accuracy(0.0626, 0.0625).verdict == "실패"


def test_check_accuracy_by_hand():
    ref = np.array([[1.0, 2.0], [3.0, 4.0]])
    y = ref + np.array([[0.0, 3e-5], [-7e-5, 0.0]])
    acc = accuracy.check_accuracy(y, ref, "fp32")
    assert acc.max_abs_err == pytest.approx(7e-5) and acc.tolerance == 1e-4 and acc.passed
    assert accuracy.check_accuracy(y, ref, "bf16").tolerance == 0.0625
    acc = accuracy.check_accuracy(y, ref, "bf16", tolerance=5e-5)           # explicit tolerance wins
    assert acc.tolerance == 5e-5 and not acc.passed
    assert accuracy.check_accuracy(y, ref, tolerance=1e-4).passed         # no precision needed then
    assert accuracy.check_accuracy(np.zeros((0, 2)), np.zeros((0, 2)), "fp32").max_abs_err == 0.0
    nan = ref.copy()
    nan[0, 0] = np.nan
    assert accuracy.check_accuracy(nan, ref, "fp32").max_abs_err == math.inf
    assert accuracy.check_accuracy([[1, 2], [3, 4]], ref, "fp32").max_abs_err == 0.0   # lists are converted
    with pytest.raises(ValueError, match=r"^pass precision \('fp32' or 'bf16'\) or an explicit tolerance"):
        accuracy.check_accuracy(y, ref)
    with pytest.raises(ValueError, match=r"^precision must be one of 'fp32', 'bf16', got 'fp16'"):
        accuracy.check_accuracy(y, ref, "fp16")
    with pytest.raises(ValueError, match=r"^tolerance must be > 0"):
        accuracy.check_accuracy(y, ref, tolerance=0.0)
    with pytest.raises(ValueError, match=r"^y has shape \(1, 2\) but y_ref has shape \(2, 2\)"):
        accuracy.check_accuracy(y[:1], ref, "fp32")


def test_check_accuracy_known_inputs():
    ref = np.array([[0.0, 1.0], [2.0, 3.0]])
    acc = accuracy.check_accuracy(ref + np.array([[0, 5e-5], [0, -2e-5]]), ref, "fp32")
    assert acc.max_abs_err == pytest.approx(5e-5) and acc.passed and acc.verdict == "통과"
    acc = accuracy.check_accuracy(ref + 2e-4, ref, "fp32")
    assert not acc.passed and acc.verdict == "실패"
    assert accuracy.check_accuracy(ref + 0.05, ref, "bf16").passed
    assert not accuracy.check_accuracy(ref + 0.07, ref, "bf16").passed
    assert not accuracy.check_accuracy(ref + 0.05, ref, tolerance=0.01).passed
    nan = ref.copy()
    nan[0, 0] = np.nan
    assert not accuracy.check_accuracy(nan, ref, "fp32").passed
    with pytest.raises(ValueError, match="shape"):
        accuracy.check_accuracy(ref[:1], ref, "fp32")
    with pytest.raises(ValueError, match="precision"):
        accuracy.check_accuracy(ref, ref)
    with pytest.raises(ValueError, match="tolerance"):
        accuracy.check_accuracy(ref, ref, tolerance=-1)


def test_tolerances_separate_fp32_tf32_bf16():
    """The fp32 tolerance passes FP32 and catches TF32-rounded inputs; bf16 passes a BF16 product."""
    x, w, b = accuracy.make_inputs(128, 1024, 1024, seed=0)
    ref = accuracy.reference_output(x, w, b)
    y32 = np.maximum(x @ w + b, 0)
    assert accuracy.check_accuracy(y32, ref, "fp32").passed

    def round_mantissa(a, bits):  # keep `bits` explicit mantissa bits (round to nearest)
        m, e = np.frexp(a.astype(np.float64))
        return np.ldexp(np.round(m * 2.0 ** (bits + 1)) / 2.0 ** (bits + 1), e)
    y_tf32 = np.maximum(round_mantissa(x, 10) @ round_mantissa(w, 10) + b, 0)
    assert not accuracy.check_accuracy(y_tf32, ref, "fp32").passed
    y_bf16 = round_mantissa(np.maximum(round_mantissa(x, 7) @ round_mantissa(w, 7) + round_mantissa(b, 7), 0), 7)
    acc = accuracy.check_accuracy(y_bf16, ref, "bf16")
    assert acc.passed and acc.max_abs_err > accuracy.UNIT_ROUNDOFF["bf16"]


def test_worst_is_the_largest_excess_over_tolerance():
    bf16_ok = accuracy.Accuracy(0.05, 0.0625)        # larger error, but 0.0125 below its tolerance
    fp32_bad = accuracy.Accuracy(2e-4, 1e-4)         # smaller error, 1e-4 above its tolerance
    fp32_ok = accuracy.Accuracy(1e-5, 1e-4)
    assert accuracy.worst(bf16_ok, fp32_bad, fp32_ok) is fp32_bad
    assert accuracy.worst(None, fp32_ok, bf16_ok) is fp32_ok   # excess -9e-5 is larger than -0.0125
    assert accuracy.worst(fp32_ok, None) is fp32_ok
    assert accuracy.worst() is None and accuracy.worst(None, None) is None
