"""xpucalc.bench.grid: the source's grid in its table order, and finding a condition in it."""
from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

import pytest

from xpucalc import bench
from xpucalc.bench import grid

REPO = Path(__file__).resolve().parents[2]

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


@pytest.mark.parametrize("framework", ["torch", "jax"])
def test_compiler_is_warmed_once_before_the_first_compiled_condition_on_another_shape(monkeypatch, framework):
    log = []

    def fake_runner(path, precision, m, k, n, **kw):
        log.append(("run", path, precision, (m, k, n)))
        return bench.unsupported(bench.Condition(framework, path, precision, m, k, n), "fake")

    def fake_warm(fw, m, k, n, precision="fp32", **kw):
        log.append(("warm", fw, precision, (m, k, n), kw))
        return grid.CompilerWarmup(fw, m, k, n, 2.5)

    monkeypatch.setattr(grid, "_runner", lambda fw: fake_runner)
    monkeypatch.setattr(grid, "warm_compiler", fake_warm)
    rs = bench.run_grid(framework, ms=(2, 3, 4), k=24, n=40, device="cpu", reps=3)
    warms = [i for i, e in enumerate(log) if e[0] == "warm"]
    first_compiled = next(i for i, e in enumerate(log) if e[0] == "run" and e[1] == "compiled")
    assert warms == [first_compiled - 1]                       # once, right before the first compiled condition
    shape = log[warms[0]][3]
    measured = {e[3] for e in log if e[0] == "run"}
    assert shape not in measured and shape[0] not in (2, 3, 4) and shape[1] != 24 and shape[2] != 40
    assert log[warms[0]][2] == "fp32" and log[warms[0]][4] == {"device": "cpu", "reps": 3}
    assert [r.key() for r in rs] == [(p, q, m) for p in bench.PATHS for q in bench.PRECISIONS for m in (2, 3, 4)]
    for r in rs:   # every compiled result says what the warm-up cost; the eager ones are untouched
        assert any("2,500 ms" in note for note in r.notes) is (r.path == "compiled")
    log.clear()
    bench.run_grid(framework, paths=("eager",), ms=(1,), k=8, n=8)
    bench.run_grid(framework, paths=("compiled",), ms=(1,), k=8, n=8, warm_up_compiler=False)
    assert not [e for e in log if e[0] == "warm"]


def test_throwaway_shape_differs_from_every_measured_one():
    assert grid.throwaway_shape((128, 1), 1024, 1024) == (3, 24, 40)
    m, k, n = grid.throwaway_shape((3, 4, 5, 6), 24, 40)
    assert m not in (3, 4, 5, 6) and k != 24 and n != 40


def test_warm_compiler_runs_jax_and_reports_a_failure():
    pytest.importorskip("jax")
    w = grid.warm_compiler("jax", 3, 24, 40, "fp32", platform="cpu", reps=3)
    assert w.seconds is not None and w.seconds > 0 and w.reason == ""
    bad = grid.warm_compiler("jax", 3, 24, 40, "fp32", platform="no-such-platform")
    assert bad.seconds is None and bad.reason and "실패" in bad.note


_FIRST_CALLS = """
import json, warnings
warnings.simplefilter("ignore")
from xpucalc import bench
rs = bench.run_grid("torch", paths=("compiled",), precisions=("fp32",), ms=(2, 1), k=16, n=16, device="cpu",
                    warmup=0, reps=2, warmup_s=0)
print(json.dumps([r.first_call_s for r in rs]))
"""


def test_first_compiled_condition_does_not_carry_the_compilers_start_up(tmp_path):
    # a fresh process with empty compile caches, as in a lab's first run: without the warm-up the first compiled
    # condition's first call was ~10x the second's (Inductor's one-time start-up), with it about 1x
    pytest.importorskip("torch")
    from xpucalc.bench import coldstart

    env = coldstart.fresh_cache_env(str(tmp_path))
    env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")
    run = subprocess.run([sys.executable, "-c", _FIRST_CALLS], capture_output=True, text=True, env=env, timeout=300,
                         cwd=tmp_path)
    assert run.returncode == 0, run.stderr[-2000:]
    first, second = json.loads(run.stdout.strip().splitlines()[-1])
    assert first <= 5 * second, (first, second)
