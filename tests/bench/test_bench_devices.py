"""Tests of the device measurements: STREAM bandwidth, GEMM, the layer sweep, launch overhead, collectives.

Golden values are worked by hand in the comments. The measured runs are tiny (a
few MiB, a few repetitions) and only check behaviour: byte and FLOP counting,
the result checks that catch a kernel that did not run, the process clean-up of
the collectives, and the CUDA code paths with a recording fake of ``torch.cuda``.
"""
from __future__ import annotations

import math
import os
import sys
import time
from pathlib import Path

import pytest

from xpucalc import bench, llm
from xpucalc.bench import bandwidth, collectives, cuda_timing, matmul, sweep, target
from xpucalc.bench.timing import summarize

torch = pytest.importorskip("torch")


# --------------------------------------------------------------------------- target: devices, threads, caches

@pytest.mark.parametrize("bad", ["", "gpu", "cuda:x", "cpu:0", "jax:metal", "mps:1", 3])
def test_resolve_refuses_unknown_devices(bad):
    with pytest.raises(ValueError, match="device"):
        target.resolve(bad)


def test_resolve_cpu_and_missing_cuda():
    t = target.resolve("cpu")
    assert (t.framework, t.kind, t.device, t.accelerator) == ("torch", "cpu", "cpu", False)
    if not torch.cuda.is_available():
        with pytest.raises(RuntimeError, match="CUDA"):
            target.resolve("cuda:0")
        assert target.resolve("auto").kind in ("cpu", "tpu")


def test_cpu_threads_default_one_and_restored():
    before = torch.get_num_threads()
    cpu = target.resolve("cpu")
    with target.cpu_threads(cpu, None) as used:
        assert used == 1 == torch.get_num_threads()
    assert torch.get_num_threads() == before
    with pytest.raises(ValueError, match="threads"):
        with target.cpu_threads(cpu, 0):
            pass
    with pytest.raises(ValueError, match="threads"):
        with target.cpu_threads(target.Target("jax", "tpu", "tpu"), 2):
            pass


@pytest.mark.parametrize("text, nbytes", [("48K", 48 * 1024), ("2048K", 2 * 2**20), ("300 MiB", 300 * 2**20),
                                          ("1.5M", 3 * 2**19), ("64", 64)])
def test_parse_size(text, nbytes):
    assert target.parse_size(text) == nbytes


def _fake_sysfs(root: Path) -> Path:
    # two CPUs: private L1d 48K, L1i 32K, L2 2048K each; one L3 of 300 MiB shared by both
    for cpu in (0, 1):
        for idx, (level, kind, size, shared) in enumerate([(1, "Data", "48K", str(cpu)),
                                                            (1, "Instruction", "32K", str(cpu)),
                                                            (2, "Unified", "2048K", str(cpu)),
                                                            (3, "Unified", "307200K", "0-1")]):
            d = root / f"cpu{cpu}" / "cache" / f"index{idx}"
            d.mkdir(parents=True)
            for name, value in (("level", level), ("type", kind), ("size", size), ("shared_cpu_list", shared)):
                (d / name).write_text(f"{value}\n")
    return root


def test_cache_sizes_from_sysfs(tmp_path):
    caches = target.cache_sizes(_fake_sysfs(tmp_path))
    assert sorted(caches) == [1, 2, 3]  # the instruction cache is left out
    assert (caches[1].size_bytes, caches[1].instances) == (48 * 1024, 2)
    assert caches[2].total_bytes == 2 * 2 * 2**20      # two private 2 MiB L2s
    assert caches[3].total_bytes == 300 * 2**20        # one shared L3, counted once
    assert target.llc_bytes(tmp_path) == 300 * 2**20


def test_cache_sizes_fall_back_to_lscpu(tmp_path, monkeypatch):
    text = "L1d cache:  96 KiB (2 instances)\nL2 cache:  4 MiB (2 instances)\nL3 cache:  300 MiB (1 instance)\n"

    class Done:
        stdout = text

    monkeypatch.setattr(target.subprocess, "run", lambda *a, **k: Done())
    caches = target.cache_sizes(tmp_path / "empty")
    assert caches[2].size_bytes == 2 * 2**20 and caches[2].instances == 2
    assert target.llc_bytes(tmp_path / "empty") == 300 * 2**20


def test_default_nbytes_is_four_llc_on_cpu(monkeypatch):
    monkeypatch.setattr(bandwidth, "llc_bytes", lambda: 300 * 2**20 + 5)
    # 4 x (300 MiB + 5 B) rounded up to whole MiB = 1201 MiB
    assert bandwidth.default_nbytes("cpu") == 1201 * 2**20


@pytest.mark.parametrize("name, key", [("NVIDIA H100 80GB HBM3", "h100-sxm"), ("NVIDIA H100 PCIe", "h100-pcie"),
                                       ("NVIDIA H200", "h200"), ("NVIDIA A100-SXM4-40GB", "a100-sxm4-40gb"),
                                       ("NVIDIA A100-SXM4-80GB", "a100-80gb"), ("TPU v5 lite", "tpu-v5e"),
                                       ("Tesla T4", None), ("Intel(R) Xeon(R) Processor", None)])
def test_catalog_key(name, key):
    assert target.catalog_key(name) == key
    if key is not None:
        from xpucalc.catalog import devices

        assert key in devices.keys()


def test_default_reps_bounds():
    assert target.default_reps(0.1) == 10          # 1 s / 0.1 s
    assert target.default_reps(10.0) == target.MIN_REPS
    assert target.default_reps(1e-9) == target.MAX_REPS


# --------------------------------------------------------------------------- fake CUDA

class FakeCuda:
    """Records what a timer does with torch.cuda; every event pair reads 2 ms."""

    def __init__(self) -> None:
        self.log: list[str] = []
        self.clock = 0.0
        outer = self

        class Event:
            def __init__(self, enable_timing: bool = False) -> None:
                self.t = None

            def record(self) -> None:
                outer.clock += 1.0
                self.t = outer.clock
                outer.log.append("record")

            def synchronize(self) -> None:
                outer.log.append("event.sync")

            def elapsed_time(self, other: "Event") -> float:
                return 2.0  # ms

        class Ctx:
            def __enter__(self) -> None:
                outer.log.append("enter")

            def __exit__(self, *a: object) -> None:
                outer.log.append("exit")

        class Stream:
            def wait_stream(self, other: object) -> None:
                pass

        class Graph:
            def replay(self) -> None:
                outer.log.append("replay")

        self.Event, self.Stream, self.CUDAGraph = Event, Stream, Graph
        self._ctx = Ctx

    def device(self, index: int) -> object:
        self.log.append(f"device{index}")
        return self._ctx()

    def stream(self, s: object) -> object:
        return self._ctx()

    def graph(self, g: object) -> object:
        self.log.append("capture")
        return self._ctx()

    def current_stream(self) -> object:
        return self.Stream()

    def synchronize(self, index: int | None = None) -> None:
        self.log.append(f"sync{index}")


def test_time_kernel_cuda_path_groups_calls_between_two_events():
    fake = FakeCuda()
    calls = []
    t = target.Target("torch", "cuda", "cuda:1", 1)
    samples = target.time_kernel(lambda: calls.append(1), t, reps=3, inner=4, warmup_s=1e-3, cuda=fake)
    # each sample: 2 ms between the events / 4 calls = 0.5 ms per call
    assert samples == pytest.approx([0.5e-3] * 3)
    assert "device1" in fake.log and "device0" not in fake.log   # the named device, not the current one
    last = len(fake.log) - 1 - fake.log[::-1].index("device1")
    # the timed part: on device 1, wait for it, then per sample: record, (4 calls), record, wait for the end event
    assert fake.log[last:] == ["device1", "enter", "sync1"] + ["record", "record", "event.sync"] * 3 + ["exit"]


def test_cuda_three_numbers_order_and_graph_failure():
    fake = FakeCuda()
    n_calls = []
    per, b2b, graph, why = sweep.cuda_three_numbers(lambda: n_calls.append(1), reps=2, batch=5, index=0, cuda=fake)
    assert per == pytest.approx([2e-3, 2e-3])            # one call between the events
    assert b2b == pytest.approx([0.4e-3, 0.4e-3])        # 2 ms / 5 calls
    assert graph == pytest.approx([0.4e-3, 0.4e-3]) and why == ""
    assert fake.log.count("replay") == 2 and "capture" in fake.log

    class NoGraph(FakeCuda):
        def graph(self, g: object) -> object:
            raise RuntimeError("operation not permitted when stream is capturing")

    per, b2b, graph, why = sweep.cuda_three_numbers(lambda: None, reps=1, batch=2, cuda=NoGraph())
    assert graph is None and "CUDA Graph" in why and "RuntimeError" in why


# --------------------------------------------------------------------------- STREAM

@pytest.mark.parametrize("kwargs, word", [({"kind": "read"}, "kind"), ({"nbytes": 0}, "nbytes"),
                                          ({"nbytes": 2}, "nbytes"), ({"dtype": "int8"}, "dtype"),
                                          ({"reps": 0}, "reps"), ({"inner": 0}, "inner"),
                                          ({"nbytes": 2**50}, "nbytes")])
def test_stream_bad_input_names_the_argument(kwargs, word):
    args = {"kind": "copy", "nbytes": 2**20, "device": "cpu", **kwargs}
    with pytest.raises(ValueError, match=word):
        bench.stream(**args)


@pytest.mark.parametrize("kind, arrays", [("copy", 2), ("scale", 2), ("add", 3), ("triad", 3)])
def test_stream_counts_bytes_as_stream_does(kind, arrays):
    r = bench.stream(kind, 2**20, "cpu", reps=3, warmup_s=0.01)
    assert r.kind == kind and r.nbytes == 2**20 and r.threads == 1
    assert r.bytes_moved == arrays * 2**20
    assert r.bytes_per_s == pytest.approx(arrays * 2**20 / r.timing.median_s)
    assert r.best_bytes_per_s >= r.bytes_per_s > 0
    assert r.verified and r.evidence == "CPU 동작 확인"


def test_stream_result_golden_rate():
    # triad over 1e8-byte arrays: 3e8 bytes per pass; 0.1 s per pass -> 3 GB/s
    r = bandwidth.StreamResult("triad", 10**8, 3 * 10**8, summarize([0.1, 0.1, 0.2], warn=False), 1, "cpu",
                               "torch", "float32", 1, True)
    assert r.bytes_per_s == pytest.approx(3e9) and r.best_bytes_per_s == pytest.approx(3e9)


def test_stream_catches_a_kernel_that_does_not_run(monkeypatch):
    real = bandwidth._Arrays._init_torch

    def lazy(self, count, dtype):  # the arrays are made, the kernel is replaced by nothing
        real(self, count, dtype)
        self.call = lambda: None

    monkeypatch.setattr(bandwidth._Arrays, "_init_torch", lazy)
    assert not bench.stream("triad", 2**16, "cpu", reps=2, warmup_s=0.01).verified


def test_stream_sweep_sizes_and_numpy_comparison():
    assert bandwidth.sweep_sizes(2**20, 2**16, 4) == [2**16, 2**18, 2**20]
    assert bandwidth.sweep_sizes(3 * 2**18, 2**16, 4) == [2**16, 2**18, 3 * 2**18]
    with pytest.raises(ValueError, match="smallest"):
        bandwidth.sweep_sizes(2**10, 2**16)
    c = bandwidth.compare_copy_with_numpy(4 * 2**20, rounds=2, reps_per_round=2)
    assert c.nbytes == 4 * 2**20 and c.threads == 1
    assert c.ratio == pytest.approx(c.numpy.median_s / c.stream.median_s)


# --------------------------------------------------------------------------- GEMM

@pytest.mark.parametrize("args, word", [((0, 8, 8, "fp32"), "m"), ((8, 8.5, 8, "fp32"), "k"),
                                        ((8, 8, -1, "fp32"), "n"), ((8, 8, 8, "int4"), "precision")])
def test_gemm_bad_input_names_the_argument(args, word):
    with pytest.raises(ValueError, match=word):
        bench.gemm(*args, device="cpu")


def test_gemm_counts_flops_and_checks_the_answer():
    r = bench.gemm(64, 96, 80, "fp32", "cpu", reps=3, warmup_s=0.01)
    assert r.ok and r.threads == 1 and r.accurate
    assert r.flops == 2 * 64 * 96 * 80                 # 983,040 FLOP
    assert r.flops_per_s == pytest.approx(r.flops / r.median_s)
    assert r.best_flops_per_s >= r.flops_per_s
    # fp32 bytes: 4 (64*96 + 96*80 + 64*80) = 4 (6,144 + 7,680 + 5,120) = 4 * 18,944 = 75,776
    assert r.min_bytes == 75_776 and r.intensity == pytest.approx(983_040 / 75_776)


def test_gemm_catches_a_wrong_product(monkeypatch):
    real = matmul._torch_operands

    def wrong(torch_, m, k, n, precision, dev, seed):
        a, b, call = real(torch_, m, k, n, precision, dev, seed)
        return a, b, lambda: torch_.zeros(m, n)

    monkeypatch.setattr(matmul, "_torch_operands", wrong)
    assert not bench.gemm(32, 32, 32, "fp32", "cpu", reps=2, warmup_s=0.01).accurate


@pytest.mark.parametrize("kind, prec, cc, unsupported", [
    ("cpu", "tf32", None, True), ("cpu", "fp8", None, True), ("cpu", "bf16", None, False),
    ("cuda", "tf32", (7, 5), True), ("cuda", "fp8", (8, 0), True), ("cuda", "fp8", (8, 9), False),
    ("cuda", "bf16", (7, 5), False), ("cuda", "fp8", (9, 0), False)])
def test_unsupported_reason(kind, prec, cc, unsupported):
    t = target.Target("torch", kind, "cuda:0" if kind == "cuda" else "cpu")
    assert bool(matmul.unsupported_reason(t, prec, cc)) is unsupported


def test_gemm_unsupported_is_a_result_not_a_crash():
    r = bench.gemm(16, 16, 16, "tf32", "cpu")
    assert not r.ok and "TF32" in r.reason and r.flops_per_s is None and r.evidence == "아직 미측정"


def test_fp32_matmul_mode_sets_and_restores():
    class Matmul:
        fp32_precision = "none"

    class FakeTorch:
        class backends:
            class cuda:
                matmul = Matmul()

    fake = FakeTorch()
    with matmul.fp32_matmul_mode(fake, "fp32"):
        assert fake.backends.cuda.matmul.fp32_precision == "ieee"
    assert fake.backends.cuda.matmul.fp32_precision == "none"
    with pytest.raises(KeyError):
        with matmul.fp32_matmul_mode(fake, "tf32"):
            assert fake.backends.cuda.matmul.fp32_precision == "tf32"
            raise KeyError("boom")
    assert fake.backends.cuda.matmul.fp32_precision == "none"


# --------------------------------------------------------------------------- the layer sweep, overhead, profiler

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


# --------------------------------------------------------------------------- collectives: definitions and fit

def test_busbw_factor_is_nccl_tests():
    # all-reduce 2(n-1)/n: n=2 -> 1, n=4 -> 1.5, n=8 -> 1.75; all-gather / reduce-scatter (n-1)/n: n=4 -> 0.75
    assert [collectives.busbw_factor("all_reduce", n) for n in (2, 4, 8)] == [1.0, 1.5, 1.75]
    assert collectives.busbw_factor("all_gather", 4) == 0.75 == collectives.busbw_factor("reduce_scatter", 4)
    with pytest.raises(ValueError, match="op"):
        collectives.busbw_factor("broadcast", 2)


def test_row_algbw_busbw_golden():
    # 1 MB in 1 ms -> algbw 1 GB/s; 4 ranks all-reduce -> busbw 1.5 GB/s
    row = collectives.CollectiveRow("all_reduce", 10**6, 4, "gloo", summarize([1e-3, 1e-3, 2e-3], warn=False), True)
    assert row.time_s == pytest.approx(1e-3)
    assert row.algbw == pytest.approx(1e9) and row.busbw == pytest.approx(1.5e9)


def test_fit_alpha_beta_recovers_exact_line():
    sizes = [2**10 * 4**i for i in range(8)]
    times = [50e-6 + s / 2e9 for s in sizes]           # alpha = 50 us, 1/beta = 2 GB/s
    for relative in (True, False):
        fit = collectives.fit_alpha_beta(sizes, times, relative=relative)
        assert fit.alpha_s == pytest.approx(50e-6, rel=1e-9) and fit.bandwidth == pytest.approx(2e9, rel=1e-9)
        assert fit.r2 == pytest.approx(1.0) and fit.r2_log == pytest.approx(1.0) and fit.max_rel_residual < 1e-9
    assert fit.half_size_bytes == pytest.approx(50e-6 * 2e9)   # 100 kB
    # ring with 2 ranks: t = 2(n-1)/n S/B = S/B -> B = 1/beta; 4 ranks: B = 1.5/beta
    assert fit.ring_link_bandwidth(2) == pytest.approx(2e9) and fit.ring_link_bandwidth(4) == pytest.approx(3e9)


def test_fit_alpha_beta_r2_drops_with_noise_and_refuses_bad_input():
    sizes = [1e3, 1e4, 1e5, 1e6, 1e7]
    times = [1e-4 + s / 1e9 for s in sizes]
    times[-1] *= 1.5                                      # the largest point off the line by 50 %
    rel = collectives.fit_alpha_beta(sizes, times)
    assert rel.r2 < 0.95 and rel.alpha_s == pytest.approx(1e-4, rel=0.05)   # alpha still found from the small sizes
    # ordinary least squares bends to the largest point: R² stays 0.999, alpha turns negative, the small sizes
    # are off by more than 100 % -- why the fit weighs relative residuals and reports max_rel_residual
    ols = collectives.fit_alpha_beta(sizes, times, relative=False)
    assert ols.r2 > 0.99 and ols.alpha_s < 0 and ols.max_rel_residual > 1
    with pytest.raises(ValueError, match="length"):
        collectives.fit_alpha_beta([1, 2], [1.0])
    with pytest.raises(ValueError, match="two different"):
        collectives.fit_alpha_beta([5, 5], [1.0, 1.0])
    with pytest.raises(ValueError, match="times"):
        collectives.fit_alpha_beta([1, 2], [1.0, -1.0])


def test_compare_with_ring_formula_uses_llm_allreduce_time():
    sizes = [2**12, 2**20, 2**26]
    rows = [collectives.CollectiveRow("all_reduce", s, 4, "gloo", summarize([20e-6 + s / 1e9], warn=False), True)
            for s in sizes]
    out = collectives.compare_with_ring_formula(rows)
    fit = collectives.fit_alpha_beta(sizes, [r.time_s for r in rows])
    for d, s in zip(out, sizes):
        assert d["formula_s"] == pytest.approx(llm.allreduce_time_s(s, fit.ring_link_bandwidth(4), 4))
        assert d["formula_s"] == pytest.approx(s / 1e9)   # the formula is the beta part alone
    # largest: (20 us + 67.1 ms) / 67.1 ms = 1 + 20e-6 / 0.0671 = 1.000298
    assert out[-1]["ratio"] == pytest.approx(1 + 20e-6 / (2**26 / 1e9))
    with pytest.raises(ValueError, match="all-reduce"):
        collectives.compare_with_ring_formula([collectives.CollectiveRow("all_gather", 8, 2, "gloo", rows[0].timing, True)])


# --------------------------------------------------------------------------- collectives: processes

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
        assert r.busbw == pytest.approx(r.algbw * collectives.busbw_factor(r.op, 2))
        assert r.evidence == "CPU 동작 확인"
    assert [r.op for r in bench.allreduce_sweep([2**12], 2, reps=5)] == ["all_reduce"]


# --------------------------------------------------------------------------- plots

def test_plots_draw_their_data():
    import matplotlib

    matplotlib.use("Agg")
    from xpucalc import Device
    from xpucalc.render import bench_plots as plots

    rs = [bandwidth.StreamResult("copy", n, 2 * n, summarize([n / 1e10], warn=False), 1, "cpu", "torch", "float32",
                                 1, True) for n in (2**16, 2**20)]
    ax = plots.bandwidth_plot(rs, {"L2": 2**21})
    assert [ln.get_ydata()[0] for ln in ax.get_lines()[:1]] == pytest.approx([20.0])   # 2n / (n / 1e10) = 20 GB/s
    roof = Device("측정", 1e11, 1e10)
    ax = plots.measured_roofline_plot([roof], {"층": [(1.0, 5e9), (100.0, 9e10)]})
    pts = ax.get_lines()[-1]
    assert list(pts.get_xdata()) == [1.0, 100.0] and list(pts.get_ydata()) == pytest.approx([5.0, 90.0])  # GFLOP/s
    rows = [collectives.CollectiveRow("all_reduce", s, 2, "gloo", summarize([1e-4 + s / 1e9], warn=False), True)
            for s in (1e3, 1e6)]
    ax = plots.collective_time_plot(rows, collectives.fit_alpha_beta([1e3, 1e6], [r.time_s for r in rows]))
    assert list(ax.get_lines()[0].get_ydata()) == pytest.approx([(1e-4 + 1e-6) * 1e3, (1e-4 + 1e-3) * 1e3])
    plots.busbw_plot(rows)
    with pytest.raises(ValueError, match="roofs"):
        plots.measured_roofline_plot([], {})
    matplotlib.pyplot.close("all")


# --------------------------------------------------------------------------- the stored CPU reference (read by the book)

def test_cpu_reference_data_is_consistent():
    from xpucalc.bench import cpu_reference

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


def test_jax_path_runs_stream_gemm_and_layer():
    pytest.importorskip("jax")
    s = bench.stream("triad", 2**16, "jax:cpu", reps=2, warmup_s=0.01)
    assert s.framework == "jax" and s.threads is None and s.verified and s.bytes_moved == 3 * 2**16
    g = bench.gemm(16, 24, 8, "fp32", "jax:cpu", reps=2, warmup_s=0.01)
    assert g.ok and g.accurate and g.framework == "jax" and g.flops == 2 * 16 * 24 * 8
    assert not bench.gemm(16, 16, 16, "fp8", "jax:cpu").ok
    p = bench.layer_sweep((2,), 32, 16, device="jax:cpu", reps=2, warmup_s=0.01)[0]
    assert p.workload.flops == 2 * 2 * 32 * 16 and p.threads is None
    with pytest.raises(ValueError, match="threads"):
        bench.stream("copy", 2**16, "jax:cpu", threads=2)
