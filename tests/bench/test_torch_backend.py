"""xpucalc.bench.torch_backend: run_torch on a CPU, its GPU path with the CUDA calls faked, torch.compile's counters."""
from __future__ import annotations

import statistics
import types

import pytest
from _bench_checks import BAD_RUNNER_INPUTS, check_bad_input, check_ok
from _fake_cuda import US, FakeGpu, fake_cuda, fake_torch

from xpucalc import bench, evidence
from xpucalc.bench import torch_backend
from xpucalc.bench.conditions import Condition, Options
from xpucalc.bench.environment import Environment
from xpucalc.bench.timing import LastOutput

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


@pytest.mark.parametrize("precision, inside", [("fp32", (False, "highest")), ("bf16", (True, "high"))])
def test_precision_reads_work_during_a_run_after_inductors_advice(monkeypatch, precision, inside):
    """After set_float32_matmul_precision("high") (what Inductor advises), code that runs inside the harness
    (Inductor reads get_float32_matmul_precision, older code allow_tf32) must be able to read the setting."""
    if not hasattr(torch.backends.cuda.matmul, "fp32_precision"):
        pytest.skip("PyTorch < 2.9: the two APIs are not coupled")
    before = torch.get_float32_matmul_precision()
    seen = []
    real = torch.addmm

    def reading(*args, **kwargs):
        seen.append((torch.backends.cuda.matmul.allow_tf32, torch.get_float32_matmul_precision()))
        return real(*args, **kwargs)
    torch.set_float32_matmul_precision("high")
    try:
        monkeypatch.setattr(torch, "addmm", reading)
        r = bench.run_torch("eager", precision, 2, 16, 16, device="cpu", warmup=0, reps=1, warmup_s=0)
        monkeypatch.undo()
        assert r.ok and set(seen) == {inside}
        assert torch.get_float32_matmul_precision() == "high" and torch.backends.cuda.matmul.allow_tf32 is True
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
    # the fake GPU: launch 10 us, kernel 2 us (5 us with its data in HBM), graph launch 4 us, HBM 4 TB/s
    gpu = FakeGpu()
    torch_ = fake_torch(gpu)
    env = Environment("torch", "x", "cuda", "Fake GPU", 2, l2_bytes=50e6, device_index=1)
    notes: list[str] = []
    g = torch_backend._gpu_steady(torch_, gpu.call, env, 100, 50, notes, 0.1, "t", cuda=torch_.cuda)
    assert torch_.made == [(100_000_000, "cuda:1")] and g.flush_bytes == 100e6   # 2 x L2
    assert g.per_call.median_s == pytest.approx(12 * US)        # launch + kernel
    assert g.back_to_back.median_s == pytest.approx(10.04 * US)  # (50 x 10 + 2) / 50
    assert g.kernel.median_s == pytest.approx(2.08 * US)         # (4 + 50 x 2) / 50
    # per call, L2 cold: the flush (100 MB / 4 TB/s = 25 us) is waited for, then launch + cold kernel
    assert g.per_call_l2_cold.median_s == pytest.approx(15 * US)
    # kernel time, L2 cold: the flush overlaps the replay's launch (do_bench's form): the cold kernel alone
    assert g.kernel_l2_cold.median_s == pytest.approx(5 * US)
    assert g.per_call.n == g.per_call_l2_cold.n == g.kernel_l2_cold.n == 100
    assert g.back_to_back.n == g.kernel.n == 4   # max(1, 100 // 50) x 2 groups
    assert g.per_call_host is not None and g.batch == 50 and g.clock == "cuda-event" and notes == []
    assert all(e[1] == 1 for e in gpu.log if e[0] in ("record", "fn", "flush", "replay", "sync"))
    # per_call >= back_to_back >= kernel: the ordering the labs teach; cold per call is never below warm
    assert g.per_call.median_s > g.back_to_back.median_s > g.kernel.median_s
    assert g.per_call_l2_cold.median_s >= g.per_call.median_s


def test_gpu_steady_reports_a_failed_graph_capture():
    gpu = FakeGpu()
    torch_ = fake_torch(gpu)

    def call():   # a call that reads a value back to the host: legal, but not during a stream capture
        gpu.call()
        gpu.item()

    notes: list[str] = []
    g = torch_backend._gpu_steady(torch_, call, Environment("torch", "x", "cuda", "F", 1), 10, 5, notes, 0.1, "t",
                                  cuda=torch_.cuda)
    assert g.kernel is None and g.kernel_l2_cold is None and g.per_call.n == 10
    assert len(notes) == 1 and "CUDA 그래프" in notes[0] and "capturing" in notes[0]


@pytest.mark.parametrize("mode", torch_backend.CUDAGRAPH_MODES)
def test_gpu_steady_does_not_capture_on_top_of_inductor_cuda_graphs(mode):
    gpu = FakeGpu()
    torch_ = fake_torch(gpu)

    def no_capture():
        raise AssertionError("a CUDA graph was captured on top of Inductor's")
    torch_.cuda.CUDAGraph = no_capture
    notes: list[str] = []
    g = torch_backend._gpu_steady(torch_, gpu.call, Environment("torch", "x", "cuda", "F", 1), 10, 5, notes, 0.1,
                                  "t", cuda=torch_.cuda, own_graphs=mode)
    assert g.kernel is None and g.kernel_l2_cold is None and gpu.steps("replay") == []
    assert g.per_call.n == g.per_call_l2_cold.n == 10 and g.back_to_back.n == 4
    assert notes == [f"{mode}: torch.compile이 이미 CUDA 그래프로 실행하므로 그 위에 CUDA 그래프를 다시 캡처하지 "
                     "않았습니다(커널 시간 없음). 연속 호출 시간에 그래프 재생이 들어 있습니다"]


OVERWRITTEN = ("Error: accessing tensor output of CUDAGraphs that has been overwritten by a subsequent run. "
               "To prevent overwriting, clone the tensor outside of torch.compile() or call "
               "torch.compiler.cudagraph_mark_step_begin() before each model invocation.")


class CudagraphTreeLayer:
    """``torch.compile(mode="reduce-overhead")`` on a CUDA GPU in inference, as cudagraph trees behave: each call
    is a new generation that replays the graph into the same static output memory, and reading an output of
    an earlier call raises PyTorch's error."""

    def __init__(self, gpu):
        self.gpu, self.generation = gpu, 0

    def __call__(self, x):
        self.generation += 1
        self.gpu.call()
        return TreeOutput(self, self.generation)


class TreeOutput:
    def __init__(self, tree, generation):
        self.tree, self.generation = tree, generation

    def _check(self):
        if self.generation != self.tree.generation:
            raise RuntimeError(OVERWRITTEN)

    def clone(self):
        self._check()
        return torch.full((2, 2), float(self.generation))

    def float(self):
        self._check()
        return self

    def to(self, *args, **kwargs):
        self._check()
        return self


def test_reduce_overhead_keeps_the_last_output_before_later_replays():
    gpu = FakeGpu()
    torch_ = fake_torch(gpu)
    plain_empty = torch_.empty

    class Pinned:   # torch.empty(..., pin_memory=True): a host buffer that Y is copied into
        def copy_(self, src, non_blocking=False):
            src.to("cpu")
            return self

    def empty(size, dtype=None, device=None, pin_memory=False):
        if pin_memory:
            gpu.alloc(8, pool=False)
            return Pinned()
        return plain_empty(size, dtype, device)
    torch_.empty = empty
    x_host = types.SimpleNamespace(to=lambda *a, **k: "x", pin_memory=lambda: x_host)
    layer = CudagraphTreeLayer(gpu)
    resident: list[int] = []      # the generation of each device-resident call

    def resident_call():
        y = layer("x")
        resident.append(y.generation)
        return y
    device_call = LastOutput(resident_call)
    env = Environment("torch", "x", "cuda", "F", 1)
    cond = Condition("torch", "compiled", "fp32", 2, 2, 2)
    notes: list[str] = []
    steady = torch_backend._Steady(torch_, env, cond, Options(warmup=1, reps=4, warmup_s=0, batch=2), 1, 4,
                                   lambda _=None: torch_.cuda.synchronize(0), notes, own_graphs="reduce-overhead",
                                   cuda=torch_.cuda)
    steady.measure(device_call, layer, x_host, "cuda:0", None)
    # the copies and pinned calls replayed the graph after the last device-resident call ...
    with pytest.raises(RuntimeError, match="overwritten by a subsequent run"):
        device_call.value.float()
    # ... but the harness kept that output first: a copy of the last device-resident call's output
    assert layer.generation > resident[-1]
    assert isinstance(steady.last_output, torch.Tensor) and steady.last_output[0, 0].item() == resident[-1]
    assert any("reduce-overhead" in n and "캡처하지 않았습니다" in n for n in notes)
