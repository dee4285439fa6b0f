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


#: Kernel names as H100/H200 profiles show them (recent and older cuBLAS, cuBLASLt, CUTLASS, gemv, Inductor).
NVJET = "nvjet_hsh_128x256_64x4_1x2_h_bz_coopA_NNT"
SM90 = ("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_segment_k_off_"
        "kernel__5x_cublas")
AMPERE = "ampere_bf16_s16816gemm_bf16_128x128_ldg8_f2f_stages_32x5_tn"
RELU = ("void at::native::vectorized_elementwise_kernel<4, at::native::(anonymous namespace)::launch_clamp_scalar"
        "(at::TensorIteratorBase&, c10::Scalar, c10::Scalar, at::native::detail::ClampLimits)::{lambda()#1}::"
        "operator()() const::{lambda()#14}::operator()() const::{lambda(c10::BFloat16)#1}, "
        "std::array<char*, 2ul> >(int, at::native::(anonymous namespace)::launch_clamp_scalar)")
TEMPLATE = "triton_tem_fused_addmm_relu_0"
EPILOGUE = "triton_poi_fused_addmm_relu_0"
GEMMS = [NVJET, SM90, AMPERE,
         "sm80_xmma_gemm_bf16bf16_bf16f32_f32_nn_n_tilesize96x128x32_stage4_warpsize2x2x1_tensor16x8x16_kernel",
         "cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_128x128_32x3_tn_align8",
         "void gemv2T_kernel_val<int, int, __nv_bfloat16, __nv_bfloat16, float, float, 128, 16, 4, 4, false, false, "
         "cublasGemvParamsEx<int, cublasGemvTensorStridedBatched<__nv_bfloat16 const>, "
         "cublasGemvTensorStridedBatched<__nv_bfloat16 const>, cublasGemvTensorStridedBatched<__nv_bfloat16>, "
         "float> >(float, float)",
         "void gemvx_kernel<int, int, float, float, float, float, false, true, true, false, 7, false, "
         "cublasGemvParamsEx<int, cublasGemvTensorStridedBatched<float const>, "
         "cublasGemvTensorStridedBatched<float const>, cublasGemvTensorStridedBatched<float>, float> >()",
         "void internal::gemvx::kernel<int, int, float, float, float, float, false, true, true, false, 7, false, "
         "cublasGemvParamsEx<int, cublasGemvTensorStridedBatched<float const>, "
         "cublasGemvTensorStridedBatched<float const>, cublasGemvTensorStridedBatched<float>, float> >()",
         "void cublasLt::splitKreduce_kernel<32, 16, int, float, __nv_bfloat16, float, __nv_bfloat16, true, false, "
         "false>(cublasLt::cublasSplitKParams<float>, float const*, __nv_bfloat16 const*, __nv_bfloat16*, "
         "float const*, float const*, __nv_bfloat16 const*, float const*, __nv_bfloat16*, void*, long, float*, int*)",
         TEMPLATE, "aten::addmm", "aten::mm"]
NOT_GEMMS = [EPILOGUE, "triton_per_fused_sum_0", "triton_red_fused_addmm_sum_1", RELU, "aten::relu",
             "aten::clamp_min", "Memcpy HtoD (Pageable -> Device)", "Memset (Device)",
             "void cublasLt::epilogue::impl::globalKernel<8, 32, float, float, __nv_bfloat16, true, false, false>"]


@pytest.mark.parametrize("name", GEMMS)
def test_real_gemm_kernel_names_are_gemms(name):
    assert sweep.is_gemm(name) and sweep.kernel_kind(name) == "gemm"


@pytest.mark.parametrize("name", NOT_GEMMS)
def test_real_non_gemm_kernel_names_are_not_gemms(name):
    assert not sweep.is_gemm(name)


def test_triton_prefixes_decide_before_the_op_names_in_the_kernel_name():
    assert sweep.kernel_kind(EPILOGUE) == "pointwise" and sweep.kernel_kind("triton_per_fused_addmm_0") == "reduction"
    assert sweep.kernel_kind(TEMPLATE) == "gemm" and sweep.kernel_kind(RELU) == "pointwise"


def test_summarize_events_counts_kernels_and_fusion():
    # eager CUDA on an H200: a cuBLAS GEMM (bias in its epilogue) and a separate ReLU kernel per call
    events = [(NVJET, "cuda", None), (RELU, "cuda", None), ("Memcpy HtoD (Pageable -> Device)", "cuda", None),
              ("aten::addmm", "cpu", None)] * 2
    s = sweep.summarize_events(events, calls=2, level="kernel")
    assert s.per_call == 2 and not s.fused
    assert s.gemm_names == (NVJET,) and s.other_names == (RELU,)
    # Inductor with its GEMM template: bias + ReLU inside the one kernel
    fused = sweep.summarize_events([(TEMPLATE, "cuda", None)] * 3, calls=3, level="kernel")
    assert fused.per_call == 1 and fused.fused and fused.gemm_names == (TEMPLATE,)
    # Inductor calling cuBLAS, then its own pointwise bias + ReLU kernel: not fused, and the GEMM is the cuBLAS one
    ext = sweep.summarize_events([(SM90, "cuda", None), (EPILOGUE, "cuda", None)] * 2, calls=2, level="kernel")
    assert not ext.fused and ext.gemm_names == (SM90,) and ext.other_names == (EPILOGUE,)
    assert not sweep.summarize_events([(RELU, "cuda", None)], 1, "kernel").fused   # no GEMM at all
    ops = sweep.summarize_events([("aten::addmm", "cpu", None), ("aten::mm", "cpu", "parent"),
                                  ("aten::relu", "cpu", None), ("aten::clamp_min", "cpu", "parent")], 1, "operator")
    assert ops.names == (("aten::addmm", 1), ("aten::relu", 1)) and ops.gemm_names == ("aten::addmm",)
    assert ops.other_names == ("aten::relu",) and not ops.fused
    with pytest.raises(ValueError, match="level"):
        sweep.summarize_events([], 1, "thread")


def test_kernel_summary_leaves_no_profiler_lines_on_stderr(capfd):
    # Kineto prints "USDT:<date> ... profiler_start / profiler_stop" on file descriptor 2 (not sys.stderr)
    bench.kernel_summary(4, 16, 16, device="cpu", calls=1)
    assert "USDT" not in capfd.readouterr().err


def test_quiet_profiler_stderr_keeps_other_lines(capfd):
    import os

    with sweep.quiet_profiler_stderr():
        os.write(2, b"USDT:2026-12-01 10:25:39 29936:29936 SyncActivityProfilerHandler.cpp:52] profiler_start\n")
        os.write(2, b"a real warning\n")
    err = capfd.readouterr().err
    assert "a real warning" in err and "USDT" not in err


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
