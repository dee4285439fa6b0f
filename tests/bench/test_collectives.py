"""xpucalc.bench.collectives: nccl-tests' sizes and bandwidths, the ring formula beside a fit, and worker processes
that always stop (on success, on a worker error, on the time limit)."""
from __future__ import annotations

import os
import sys
import time

import pytest

from xpucalc import bench
from xpucalc.bench import alpha_beta, collectives
from xpucalc.bench.timing import summarize
from xpucalc.llm import comm

torch = pytest.importorskip("torch")


def test_busbw_is_algbw_times_the_nccl_tests_factor():
    # all-reduce 2(n-1)/n: n=2 -> 1, n=4 -> 1.5, n=8 -> 1.75; all-gather / reduce-scatter (n-1)/n: n=4 -> 0.75
    t = summarize([1e-3], warn=False)
    rows = [collectives.CollectiveRow("all_reduce", 10**6, n, "gloo", t, True) for n in (2, 4, 8)]
    assert [r.busbw / r.algbw for r in rows] == pytest.approx([1.0, 1.5, 1.75])
    for op in ("all_gather", "reduce_scatter"):
        assert collectives.CollectiveRow(op, 10**6, 4, "gloo", t, True).busbw == pytest.approx(0.75e9)
    assert comm.busbw_factor("all_reduce", 4) == 1.5   # the one home of the formula (tests/llm test it in full)


def test_row_algbw_busbw_golden():
    # 1 MB in 1 ms -> algbw 1 GB/s; 4 ranks all-reduce -> busbw 1.5 GB/s
    row = collectives.CollectiveRow("all_reduce", 10**6, 4, "gloo", summarize([1e-3, 1e-3, 2e-3], warn=False), True)
    assert row.time_s == pytest.approx(1e-3)
    assert row.algbw == pytest.approx(1e9) and row.busbw == pytest.approx(1.5e9)


def test_compare_with_ring_formula_uses_llm_allreduce_time():
    sizes = [2**12, 2**20, 2**26]
    rows = [collectives.CollectiveRow("all_reduce", s, 4, "gloo", summarize([20e-6 + s / 1e9], warn=False), True)
            for s in sizes]
    out = collectives.compare_with_ring_formula(rows)
    fit = alpha_beta.fit_alpha_beta(sizes, [r.time_s for r in rows])
    for d, s in zip(out, sizes):
        assert d["formula_s"] == pytest.approx(comm.allreduce_time_s(s, fit.ring_link_bandwidth(4), 4))
        assert d["formula_s"] == pytest.approx(s / 1e9)   # the formula is the beta part alone
    # largest: (20 us + 67.1 ms) / 67.1 ms = 1 + 20e-6 / 0.0671 = 1.000298
    assert out[-1]["ratio"] == pytest.approx(1 + 20e-6 / (2**26 / 1e9))
    with pytest.raises(ValueError, match="all-reduce"):
        collectives.compare_with_ring_formula([collectives.CollectiveRow("all_gather", 8, 2, "gloo", rows[0].timing, True)])


def _gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def test_run_processes_stops_everyone_when_one_fails():
    py = sys.executable
    cmds = [[py, "-c", "import sys; sys.stderr.write('boom'); sys.exit(3)"], [py, "-c", "import time; time.sleep(60)"]]
    t0 = time.monotonic()
    with pytest.raises(collectives.CollectiveError, match="rank 0 exited with code 3") as info:
        collectives.run_processes(cmds, [dict(os.environ)] * 2, timeout_s=30)
    assert time.monotonic() - t0 < 20 and "boom" in str(info.value)
    assert all(_gone(p) for p in info.value.pids)


def test_run_processes_time_limit_kills_the_workers():
    py = sys.executable
    cmds = [[py, "-c", "import time; time.sleep(60)"]] * 2
    with pytest.raises(collectives.CollectiveError, match="timeout_s") as info:
        collectives.run_processes(cmds, [dict(os.environ)] * 2, timeout_s=0.5)
    assert len(info.value.pids) == 2 and all(_gone(p) for p in info.value.pids)


@pytest.mark.parametrize("kwargs, word", [({"world_size": 1}, "world_size"), ({"backend": "mpi"}, "backend"),
                                          ({"sizes": []}, "sizes"), ({"ops": ("broadcast",)}, "op"),
                                          ({"timeout_s": 0}, "timeout_s"), ({"sizes": [0]}, "sizes")])
def test_collective_sweep_bad_input(kwargs, word):
    args = {"sizes": [4096], "world_size": 2, **kwargs}
    with pytest.raises(ValueError, match=word):
        bench.collective_sweep(**args)


@pytest.mark.skipif(torch.cuda.device_count() >= 2, reason="the machine has GPUs for NCCL")
def test_nccl_without_gpus_is_refused():
    with pytest.raises(ValueError, match="nccl"):
        bench.allreduce_sweep([4096], 2, backend="nccl")


def test_gloo_sweep_end_to_end():
    # 2 ranks: 4,100 bytes rounds down to 4,096 (a multiple of 2 ranks x 4 bytes); 10 bytes rounds up to 8
    rows = bench.collective_sweep([10, 4100, 2**16], 2, "gloo", reps=5, timeout_s=120)
    assert [(r.op, r.size_bytes) for r in rows] == [(op, s) for op in collectives.OPS for s in (8, 4096, 2**16)]
    for r in rows:
        assert r.correct and r.world_size == 2 and r.timing.n == 5 and r.time_s > 0
        assert r.algbw == pytest.approx(r.size_bytes / r.time_s)
        assert r.busbw == pytest.approx(r.algbw * comm.busbw_factor(r.op, 2))
        assert r.evidence == "CPU 동작 확인"


@pytest.mark.parametrize("sweep, op", [(bench.allreduce_sweep, "all_reduce"), (bench.allgather_sweep, "all_gather"),
                                       (bench.reduce_scatter_sweep, "reduce_scatter")])
def test_one_op_sweeps_ask_for_their_op_only(monkeypatch, sweep, op):
    seen = []
    monkeypatch.setattr(collectives, "collective_sweep", lambda *a, **k: seen.append((a, k)) or ["row"])
    assert sweep([2**12], 2, reps=5) == ["row"]
    assert seen == [(([2**12], 2, "gloo"), {"ops": (op,), "reps": 5})]
