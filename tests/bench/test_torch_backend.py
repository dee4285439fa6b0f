"""xpucalc.bench.torch_backend: run_torch on a CPU, its GPU path with the CUDA calls faked, torch.compile's counters."""
from __future__ import annotations

import statistics
import types

import pytest
from _bench_checks import BAD_RUNNER_INPUTS, check_bad_input, check_ok
from _fake_cuda import US, FakeGpu, fake_cuda, no_graph

from xpucalc import bench, evidence
from xpucalc.bench import torch_backend
from xpucalc.bench.environment import Environment

# tiny repetition counts on a shared CPU are often noisy; the flag itself is tested on synthetic timings
pytestmark = pytest.mark.filterwarnings("ignore::xpucalc.bench.NoisyTimingWarning")

torch = pytest.importorskip("torch")


# --------------------------------------------------------------------------- bad input, missing devices

@pytest.mark.parametrize("kwargs, name", BAD_RUNNER_INPUTS)
def test_bad_input_raises_value_error(kwargs, name):
    check_bad_input(bench.run_torch, kwargs, name)


@pytest.mark.skipif(torch.cuda.is_available(), reason="the machine has a CUDA GPU")
def test_missing_cuda_is_a_record():
    r = bench.run_torch("eager", "fp32", 1, 16, 16, device="cuda")
    assert r.status == bench.UNSUPPORTED and "CUDA" in r.reason
    assert r.evidence == evidence.NOT_MEASURED and r.key() == ("eager", "fp32", 1)


def test_failing_torch_compile_is_a_record(monkeypatch):
    def broken(*args, **kwargs):
        raise RuntimeError("no compiler here\nsecond line")
    monkeypatch.setattr(torch, "compile", broken)
    r = bench.run_torch("compiled", "fp32", 1, 16, 16, device="cpu", warmup=0, reps=1)
    assert r.status == bench.UNSUPPORTED
    assert "torch.compile" in r.reason and "no compiler here" in r.reason and "second" not in r.reason


# --------------------------------------------------------------------------- runs on CPU

@pytest.mark.parametrize("precision", bench.PRECISIONS)
def test_run_torch_eager_cpu(precision):
    r = bench.run_torch("eager", precision, 8, 256, 128, device="cpu", warmup=1, reps=4, warmup_s=0)
    check_ok(r, "torch", "eager", precision)
    assert r.recompiles is None and (r.m, r.k, r.n) == (8, 256, 128)


def test_run_torch_compiled_cpu_ok_or_unsupported():
    r = bench.run_torch("compiled", "fp32", 4, 64, 64, device="cpu", warmup=1, reps=4, warmup_s=0)
    if r.ok:
        check_ok(r, "torch", "compiled", "fp32")
        assert r.recompiles == 0
    else:  # e.g. no C++ compiler for inductor: a record, not a crash
        assert r.status == bench.UNSUPPORTED and r.reason


def test_run_torch_sets_ieee_fp32_and_restores_the_callers_precision():
    """After set_float32_matmul_precision("medium") the run uses IEEE FP32 and leaves "medium" readable
    (reading it raised RuntimeError when the harness flipped the legacy allow_tf32 flag)."""
    before = torch.get_float32_matmul_precision()
    torch.set_float32_matmul_precision("medium")
    try:
        r = bench.run_torch("eager", "fp32", 2, 16, 16, device="cpu", warmup=0, reps=1, warmup_s=0)
        assert dict(r.settings)["cuda.matmul.fp32_precision"] == "ieee"
        assert "cuda.matmul.allow_bf16_reduced_precision_reduction" in dict(r.settings)
        assert torch.get_float32_matmul_precision() == "medium"
        assert torch.backends.cuda.matmul.fp32_precision == "tf32"
    finally:
        torch.set_float32_matmul_precision(before)


def test_cpu_run_uses_one_thread_by_default_and_restores():
    before = torch.get_num_threads()
    torch.set_num_threads(2)
    try:
        r = bench.run_torch("eager", "fp32", 2, 16, 16, device="cpu", warmup=0, reps=2, warmup_s=0)
        assert r.environment.threads == 1 and torch.get_num_threads() == 2
        r = bench.run_torch("eager", "fp32", 2, 16, 16, device="cpu", warmup=0, reps=2, warmup_s=0, threads=2)
        assert r.environment.threads == 2
    finally:
        torch.set_num_threads(before)


def test_accuracy_is_checked_on_the_last_timed_output_too(monkeypatch):
    """A kernel that is right on the first call and wrong later (a race, a stale buffer) must fail."""
    real = torch.addmm
    calls = [0]

    def drifting(*args, **kwargs):
        calls[0] += 1
        y = real(*args, **kwargs)
        return y if calls[0] == 1 else y + 0.5
    monkeypatch.setattr(torch, "addmm", drifting)
    r = bench.run_torch("eager", "fp32", 4, 32, 32, device="cpu", warmup=0, reps=3, warmup_s=0)
    assert r.accuracy_first.passed and not r.accuracy_last.passed
    assert not r.accuracy.passed and r.accuracy.max_abs_err == pytest.approx(0.5, rel=1e-3)


def test_cpu_boundaries_are_interleaved_in_rounds():
    r = bench.run_torch("eager", "fp32", 2, 16, 16, device="cpu", warmup=0, reps=20, warmup_s=0)
    assert r.rounds == 20 and r.device.n == r.with_transfer.n == 20  # default: one call of each per round
    r = bench.run_torch("eager", "fp32", 2, 16, 16, device="cpu", warmup=0, reps=6, rounds=3, warmup_s=0)
    assert r.rounds == 3 and r.device.n == 6


def test_one_time_setup_is_measured_apart():
    r = bench.run_torch("eager", "bf16", 2, 16, 16, device="cpu", warmup=0, reps=1, warmup_s=0)
    assert r.setup_s is not None and r.setup_s > 0
    assert torch_backend.process_setup(torch, "cpu") == r.setup_s   # measured once per device, then remembered


def test_run_torch_median_agrees_with_torch_utils_benchmark():
    """run_torch's device-resident median against torch.utils.benchmark.Timer on the lab's layer (FP32, M = 128,
    K = N = 1024), one thread: a second method. The two alternate in rounds and each side's samples are pooled,
    so a change of machine load hits both. Random or wrong times, or a boundary that times something else,
    fall outside 0.67-1.5x."""
    from torch.utils import benchmark as tb

    x_np, w_np, b_np = bench.make_inputs(128, 1024, 1024)
    x, w, b = (torch.from_numpy(a) for a in (x_np, w_np, b_np))
    timer = tb.Timer("torch.relu(torch.addmm(b, x, w))", globals={"torch": torch, "x": x, "w": w, "b": b},
                     num_threads=1)
    ratios = []
    for _ in range(3):
        mine: list[float] = []
        theirs: list[float] = []
        for _ in range(4):
            r = bench.run_torch("eager", "fp32", 128, 1024, 1024, device="cpu", warmup=1, reps=8, warmup_s=0.03)
            mine += r.device.samples_s
            theirs += timer.blocked_autorange(min_run_time=0.1).times
        ratios.append(statistics.median(mine) / statistics.median(theirs))
        if 0.67 <= ratios[-1] <= 1.5:
            break
    assert 0.67 <= ratios[-1] <= 1.5, ratios


def harness_vs_timer(rounds: int = 16) -> float:
    """Median of ``bench.time_calls`` / median of torch.utils.benchmark.Timer on one 512x512 matmul.

    The two are interleaved in short rounds (harness 15 calls, Timer ~0.05 s) and each side's samples
    are pooled, so a change in machine load hits both alike. (A test of ``timing.time_calls`` kept here:
    the timing tests run under mutmut, which must not import torch.)
    """
    from torch.utils import benchmark as tb

    torch.manual_seed(0)
    a, b = torch.randn(512, 512), torch.randn(512, 512)
    # One thread on both sides (Timer's default): a multi-threaded matmul on a 2-core machine that other
    # processes share slows down in bursts whenever one of its threads is descheduled.
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        timer = tb.Timer("a @ b", globals={"a": a, "b": b}, num_threads=1)
        mine: list[float] = []
        theirs: list[float] = []
        bench.time_calls(lambda: a @ b, 20, 1)
        for _ in range(rounds):
            mine += bench.time_calls(lambda: a @ b, 1, 15)
            theirs += timer.blocked_autorange(min_run_time=0.05).times
    finally:
        torch.set_num_threads(threads)
    return statistics.median(mine) / statistics.median(theirs)


def test_time_calls_median_agrees_with_torch_utils_benchmark():
    """Harness median vs torch.utils.benchmark.Timer median on the same kernel: within the issue's band
    0.8-1.25 (tools/bench-consistency reports the figure; on a quiet machine it is within a few %)."""
    ratios = []
    for _ in range(3):  # a burst of load from another process can still spoil one attempt; each is a full check
        ratios.append(harness_vs_timer())
        if 0.8 <= ratios[-1] <= 1.25:
            break
    assert 0.8 <= ratios[-1] <= 1.25, f"harness/Timer median ratios {ratios}"


# --------------------------------------------------------------------------- torch.compile

def test_reduce_overhead_reports_skipped_cuda_graphs():
    r = bench.run_torch("compiled", "fp32", 4, 64, 64, device="cpu", compile_mode="reduce-overhead", warmup=0,
                        reps=2, warmup_s=0)
    if not r.ok:  # no C++ compiler for inductor here: a record, not a crash
        assert r.status == bench.UNSUPPORTED and "torch.compile" in r.reason
        return
    assert r.cudagraph_skips and "CUDA 그래프" in r.cudagraph_skips[0]
    assert any("reduce-overhead" in n for n in r.notes)


def test_compile_counters_notice_a_recompile():
    torch._dynamo.reset()
    f = torch.compile(lambda x: torch.relu(x) + 1, backend="eager", dynamic=False)
    f(torch.ones(4))
    first = bench.compile_counters()
    f(torch.ones(4))  # same guards: no new graph
    assert bench.compile_counters()["graphs"] == first["graphs"]
    f(torch.ones(4, dtype=torch.float64))  # dtype guard fails: recompiles
    assert bench.compile_counters()["graphs"] == first["graphs"] + 1


def test_compile_report_counts_and_notes():
    # graphs 3 after the first call, 5 at the end: 2 recompiles; cache hits 1 -> 2: the first call hit the cache;
    # reduce-overhead with 1 -> 3 skips and no logged reason: one generic reason that says how to see them
    notes: list[str] = []
    skips = torch_backend._SkipLog()
    rec, hit, graph = torch_backend._compile_report({"cache_hit": 1, "cudagraph_skips": 1},
                                                    {"graphs": 3, "cache_hit": 2}, {"graphs": 5, "cudagraph_skips": 3},
                                                    "reduce-overhead", skips, notes)
    assert (rec, hit) == (2, True) and graph == ("CUDA 그래프 건너뜀 2회 (이유: TORCH_LOGS=cudagraphs로 다시 실행하면 보입니다)",)
    assert len(notes) == 3 and notes[0].startswith("첫 호출 뒤 재컴파일 2회:") and notes[1].startswith("첫 호출이 디스크")
    assert notes[2].startswith("reduce-overhead: CUDA 그래프를 쓰지 않았습니다 (CUDA 그래프 건너뜀 2회")
    notes = []
    rec, hit, graph = torch_backend._compile_report({}, {"graphs": 1, "cache_hit": 0}, {"graphs": 1}, "default",
                                                    skips, notes)
    assert (rec, hit, graph) == (0, False, None) and notes == ["첫 호출에 컴파일이 들어 있습니다(디스크 캐시 적중 없음)"]


# --------------------------------------------------------------------------- the GPU path, faked

def test_gpu_steady_reports_all_numbers_on_the_named_device():
    gpu = FakeGpu()
    cuda = fake_cuda(gpu)
    made = []

    class Buf:
        def __init__(self, n, dtype, device):
            made.append((n, device))

        def zero_(self):
            gpu.flush()

    fake_torch = types.SimpleNamespace(empty=Buf, uint8="uint8", cuda=cuda)
    env = Environment("torch", "x", "cuda", "Fake GPU", 2, l2_bytes=50e6, device_index=1)
    notes: list[str] = []
    g = torch_backend._gpu_steady(fake_torch, gpu.call, env, 100, 50, notes, 0.1, "t", cuda=cuda)
    assert made == [(100_000_000, "cuda:1")] and g.flush_bytes == 100e6
    assert g.per_call.median_s == pytest.approx(12 * US)
    assert g.back_to_back.median_s == pytest.approx(10.04 * US)
    assert g.kernel.median_s == pytest.approx(2.08 * US)
    assert g.per_call_l2_cold.median_s == pytest.approx(5 * US)
    assert g.kernel_l2_cold.median_s == pytest.approx(5 * US)
    assert g.per_call.n == g.per_call_l2_cold.n == g.kernel_l2_cold.n == 100
    assert g.back_to_back.n == g.kernel.n == 4   # max(1, 100 // 50) x 2 groups
    assert g.per_call_host is not None and g.batch == 50 and g.clock == "cuda-event" and notes == []
    assert all(e[1] == 1 for e in gpu.log if e[0] in ("record", "fn", "flush", "replay"))
    # per_call >= back_to_back >= kernel: the ordering the labs teach
    assert g.per_call.median_s > g.back_to_back.median_s > g.kernel.median_s


def test_gpu_steady_reports_a_failed_graph_capture():
    gpu = FakeGpu()
    cuda = fake_cuda(gpu)
    cuda.CUDAGraph = no_graph
    fake_torch = types.SimpleNamespace(empty=lambda n, dtype, device: types.SimpleNamespace(zero_=gpu.flush),
                                       uint8=None, cuda=cuda)
    notes: list[str] = []
    g = torch_backend._gpu_steady(fake_torch, gpu.call, Environment("torch", "x", "cuda", "F", 1), 10, 5, notes,
                                  0.1, "t", cuda=cuda)
    assert g.kernel is None and g.kernel_l2_cold is None
    assert len(notes) == 1 and "CUDA 그래프" in notes[0] and "capturing" in notes[0]
