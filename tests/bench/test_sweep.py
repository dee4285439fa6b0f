"""xpucalc.bench.sweep: the layer over M, launch overhead (three numbers), and what the profiler says ran."""
from __future__ import annotations

import numpy as np
import pytest

from xpucalc import bench
from xpucalc.bench import sweep, target

torch = pytest.importorskip("torch")


def test_layer_sweep_points():
    pts = bench.layer_sweep((1, 8), 64, 32, "fp32", "cpu", reps=3, warmup_s=0.01)
    assert [p.m for p in pts] == [1, 8]
    p = pts[1]
    # F = 2*8*64*32 = 32,768 FLOP; Q_min = 4 (8*64 + 64*32 + 32 + 8*32) = 4 * 2,848 = 11,392 bytes
    assert p.workload.flops == 32_768 and p.workload.bytes == 11_392
    assert p.flops_per_s == pytest.approx(32_768 / p.timing.median_s)
    assert p.intensity == pytest.approx(32_768 / 11_392)
    with pytest.raises(ValueError, match="precision"):
        bench.layer_sweep((1,), precision="fp8", device="cpu")


def test_launch_overhead_on_cpu_has_no_graph():
    o = bench.launch_overhead(1, 64, 64, device="cpu", reps=5, batch=5)
    assert o.graph is None and "CUDA" in o.graph_reason
    assert o.per_call.median_s > 0 and o.back_to_back.median_s > 0
    assert o.floor_s == min(o.per_call.median_s, o.back_to_back.median_s) and o.per_call_over_floor >= 1


def test_summarize_events_counts_kernels_and_fusion():
    # two calls of an eager layer on a GPU: a cuBLAS GEMM (bias in its epilogue) and a separate ReLU kernel
    events = [("sm90_xmma_gemm_bf16", "cuda", None), ("void at::native::vectorized_elementwise_kernel<relu>", "cuda", None),
              ("Memcpy HtoD", "cuda", None), ("aten::addmm", "cpu", None)] * 2
    s = sweep.summarize_events(events, calls=2, level="kernel")
    assert s.per_call == 2 and not s.fused
    assert s.gemm_names == ("sm90_xmma_gemm_bf16",) and len(s.other_names) == 1
    fused = sweep.summarize_events([("triton_tem_fused_addmm_relu_0", "cuda", None)] * 3, calls=3, level="kernel")
    assert fused.per_call == 1 and fused.fused
    ops = sweep.summarize_events([("aten::addmm", "cpu", None), ("aten::mm", "cpu", "parent"),
                                  ("aten::relu", "cpu", None), ("aten::clamp_min", "cpu", "parent")], 1, "operator")
    assert ops.names == (("aten::addmm", 1), ("aten::relu", 1))
    with pytest.raises(ValueError, match="level"):
        sweep.summarize_events([], 1, "thread")


def test_kernel_summary_on_cpu_sees_addmm_and_relu():
    s = bench.kernel_summary(8, 64, 64, device="cpu", calls=3)
    assert dict(s.names) == {"aten::addmm": 3, "aten::relu": 3}
    assert s.per_call == 2 and not s.fused and s.level == "operator"


def test_make_layer_uses_the_harness_inputs():
    # the same X, W, b as the layer experiment of labs 01/02 (bench.make_inputs), so Y is the float64 reference's
    x, w, b = bench.make_inputs(3, 16, 8, seed=5)
    y = sweep.make_layer(3, 16, 8, "fp32", target.resolve("cpu"), seed=5)()
    assert np.allclose(y.numpy(), bench.reference_output(x, w, b), atol=1e-5)


def test_layer_sweep_on_jax():
    pytest.importorskip("jax")
    p = bench.layer_sweep((2,), 32, 16, device="jax:cpu", reps=2, warmup_s=0.01)[0]
    assert p.workload.flops == 2 * 2 * 32 * 16 and p.threads is None
