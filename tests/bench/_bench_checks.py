"""Checks shared by the runners' tests (tests/bench/test_torch_backend.py, test_jax_backend.py)."""
from __future__ import annotations

import pytest

from xpucalc import evidence


def check_ok(r, framework, path, precision):
    """A CPU run that worked: both boundaries of 4 samples, both outputs checked, the rates from the workload."""
    assert r.ok, r.reason
    assert (r.framework, r.path, r.precision) == (framework, path, precision)
    assert r.environment.kind == "cpu"
    assert r.evidence == evidence.CPU_CHECKED
    assert r.accuracy.passed
    assert r.first_call_s > 0 and r.device.median_s > 0 and r.with_transfer.median_s > 0
    assert r.device.n == 4 and r.with_transfer.n == 4
    assert r.accuracy_first.passed and r.accuracy_last.passed
    assert r.achieved_flops == pytest.approx(r.workload.flops / r.device.median_s)
    assert r.effective_bandwidth == pytest.approx(r.workload.bytes / r.device.median_s)


#: Bad arguments of a runner and the name its error must give (both runners refuse the same inputs).
BAD_RUNNER_INPUTS = [
    ({"reps": 0}, "reps"),
    ({"warmup": -1}, "warmup"),
    ({"m": 0}, "m"),
    ({"path": "graph"}, "path"),
    ({"precision": "fp16"}, "precision"),
    ({"noisy_threshold": 0}, "noisy_threshold"),
]


def check_bad_input(runner, kwargs, name):
    """``runner`` (fp32, eager, M = 1, K = N = 8, with ``kwargs`` over those) raises ValueError naming ``name``."""
    args = {"path": "eager", "precision": "fp32", "m": 1}
    args.update(kwargs)
    with pytest.raises(ValueError, match=name):
        runner(args.pop("path"), args.pop("precision"), args.pop("m"), k=8, n=8, **args)
