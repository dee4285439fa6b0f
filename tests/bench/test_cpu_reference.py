"""xpucalc.bench.cpu_reference: the stored CPU measurements the book reads are consistent with each other."""
from __future__ import annotations

import pytest

from xpucalc.bench import cpu_reference, sweep


def test_cpu_reference_data_is_consistent():
    ref = cpu_reference.load()
    assert ref.evidence == "CPU 동작 확인" and len(ref.date) == 10 and "load average" in ref.conditions
    big = ref.stream_result("triad")
    assert big.nbytes >= 4 * ref.machine["llc_bytes"] and big.bytes_moved == 3 * big.nbytes and big.verified
    assert ref.stream_result("copy").bytes_moved == 2 * ref.stream_result("copy").nbytes
    assert 3 * ref.stream_result("triad", in_cache=True).nbytes <= ref.machine["llc_bytes"]
    dram, cache = ref.roofs()
    assert dram.peak_flops == cache.peak_flops == ref.peak_flops >= ref.gemm_fp32_best_flops
    assert all(p.flops_per_s <= ref.peak_flops for p in ref.layer)   # no measured point above the compute roof
    assert dram.bandwidth == pytest.approx(big.bytes_per_s)
    assert [p.m for p in ref.layer] == list(sweep.DEFAULT_MS)
    sizes = [r.size_bytes for r in ref.allreduce]
    assert sizes == sorted(sizes) and sizes[0] == 2**10 and sizes[-1] >= 64 * 2**20
    assert all(r.correct and r.world_size == 2 and r.backend == "gloo" for r in ref.allreduce)
    assert set(ref.targets) == {"copy_over_numpy", "gemm_over_torch_benchmark", "allreduce_fit_r2_median",
                                "allreduce_fit_r2_p10"}
