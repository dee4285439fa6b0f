"""xpucalc.bench.grid: the source's grid in its table order, and finding a condition in it."""
from __future__ import annotations

import statistics

import pytest

from xpucalc import bench

pytestmark = pytest.mark.filterwarnings("ignore::xpucalc.bench.NoisyTimingWarning")


def test_run_grid_order_and_statistics_module_agrees():
    pytest.importorskip("jax")
    rs = bench.run_grid("jax", ms=(2, 1), k=16, n=16, platform="cpu", warmup=0, reps=3, warmup_s=0)
    assert [r.key() for r in rs] == [(p, q, m) for p in bench.PATHS for q in bench.PRECISIONS for m in (2, 1)]
    r = rs[0]
    assert r.device.median_s == statistics.median(r.device.samples_s)
    assert bench.find(rs, "compiled", "bf16", 1) is rs[-1] and bench.find(rs, "eager", "fp32", 64) is None


def test_run_grid_refuses_an_unknown_framework():
    with pytest.raises(ValueError, match="framework"):
        bench.run_grid("tensorflow")


def test_find_matches_path_precision_and_m():
    rs = [bench.unsupported(bench.Condition("torch", p, "fp32", m), "x") for p in bench.PATHS for m in (128, 1)]
    assert bench.find(rs, "compiled", "fp32", 1) is rs[3] and bench.find(rs, "eager", "fp32", 128) is rs[0]
    assert bench.find(rs, "eager", "bf16", 1) is None and bench.find([], "eager", "fp32", 1) is None
