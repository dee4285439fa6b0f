"""Inputs, the float64 ground truth and the accuracy verdict of Y = ReLU(XW + b)."""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._check import positive, positive_int
from .conditions import PRECISIONS, check_choice

#: Unit roundoff u = 2**-p of each precision (p = significand bits incl. the implicit one).
UNIT_ROUNDOFF: dict[str, float] = {"fp32": 2.0**-24, "bf16": 2.0**-8}

#: Default max-abs-error tolerances against the float64 reference (see :func:`check_accuracy`).
TOLERANCE: dict[str, float] = {"fp32": 1e-4, "bf16": 2.0**-4}


def make_inputs(m: int, k: int = 1024, n: int = 1024, seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Float32 inputs X [m, k], W [k, n], b [n] with unit-variance outputs.

    X ~ N(0, 1), W ~ N(0, 1/k), b ~ N(0, 0.01): each entry of XW + b is about
    N(0, 1), so the tolerances of :func:`check_accuracy` are absolute errors on
    numbers of order 1. The same seed gives the same inputs on every machine.
    """
    m, k, n = positive_int(m, "m"), positive_int(k, "k"), positive_int(n, "n")
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((m, k), dtype=np.float32)
    w = (rng.standard_normal((k, n), dtype=np.float32) / np.float32(math.sqrt(k))).astype(np.float32)
    b = (0.1 * rng.standard_normal(n, dtype=np.float32)).astype(np.float32)
    return x, w, b


def reference_output(x: np.ndarray, w: np.ndarray, b: np.ndarray) -> np.ndarray:
    """ReLU(XW + b) in float64 on the CPU -- the ground truth every run is compared with."""
    x64, w64, b64 = (np.asarray(a, dtype=np.float64) for a in (x, w, b))
    return np.maximum(x64 @ w64 + b64, 0.0)


@dataclass(frozen=True)
class Accuracy:
    """Max absolute error against the float64 reference and its verdict."""

    max_abs_err: float
    tolerance: float

    @property
    def passed(self) -> bool:
        return self.max_abs_err <= self.tolerance

    @property
    def verdict(self) -> str:
        """``통과`` or ``실패``."""
        return "통과" if self.passed else "실패"


def check_accuracy(y: Any, y_ref: Any, precision: str | None = None, tolerance: float | None = None) -> Accuracy:
    """Compare an output with the float64 reference: max abs(y - y_ref) against a tolerance.

    The default tolerances are for K = 1024 and the unit-variance inputs of
    :func:`make_inputs` (abs(Y) mostly below 5):

    * **fp32: 1e-4.** Unit roundoff u = 2^-24 ~ 6e-8. Rounding errors of the
      1024 products and sums are independent-ish, so the error of one output is
      about sqrt(K) u abs(y) ~ 2e-6 (the source measured 3.7e-7 - 2.0e-6); even the
      worst-case bound K u sum(abs(x w)) ~ 1.5e-3 is rarely approached. With TF32
      (u = 2^-11 ~ 4.9e-4) the inputs' rounding alone gives about u ~ 5e-4 per
      output and over 1e-3 at the max over 131 072 outputs, so 1e-4 passes FP32
      with a margin of ~50x and catches TF32 sneaking in.
    * **bf16: 2^-4 = 0.0625.** u = 2^-8 ~ 3.9e-3. Rounding X and W to bf16
      perturbs each output by about u (sum of K terms of size u/sqrt(K)), i.e.
      up to ~4.5 u ~ 0.018 at the max over 10^5 outputs; rounding Y itself to
      bf16 adds up to half an ulp, 2^-6 ~ 0.016 for abs(Y) in [4, 8). Expected
      max ~ 0.03 (the source measured 0.014 - 0.029), so 0.0625 (two ulps at
      abs(Y) ~ 4) passes BF16 with accumulation in FP32 and fails if the
      accumulation itself is done in BF16 (errors ~ sqrt(K) u ~ 0.1).

    Args:
        y: the device output (any array convertible by numpy, incl. torch CPU tensors).
        y_ref: the float64 reference.
        precision: ``"fp32"`` or ``"bf16"`` to pick the default tolerance.
        tolerance: explicit tolerance (overrides ``precision``).
    """
    if tolerance is None:
        if precision is None:
            raise ValueError("pass precision ('fp32' or 'bf16') or an explicit tolerance")
        tol = TOLERANCE[check_choice(precision, "precision", PRECISIONS)]
    else:
        tol = positive(tolerance, "tolerance")
    a = np.asarray(y, dtype=np.float64)
    r = np.asarray(y_ref, dtype=np.float64)
    if a.shape != r.shape:
        raise ValueError(f"y has shape {a.shape} but y_ref has shape {r.shape}")
    err = float(np.max(np.abs(a - r))) if a.size else 0.0
    if math.isnan(err):
        err = math.inf
    return Accuracy(err, tol)



def worst(*accuracies: Accuracy | None) -> Accuracy | None:
    """The accuracy with the largest error among those given (None ones skipped); None if none is given."""
    given = [a for a in accuracies if a is not None]
    return max(given, key=lambda a: a.max_abs_err - a.tolerance) if given else None


__all__ = ["Accuracy", "TOLERANCE", "UNIT_ROUNDOFF", "check_accuracy", "make_inputs", "reference_output", "worst"]
