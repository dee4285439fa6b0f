"""The GPU code paths of xpucalc.bench, run here with the CUDA calls faked.

``FakeGpu`` is a timeline model of one GPU and its host: every enqueued operation
costs the host ``launch`` seconds; the GPU runs operations in order, each starting
when both the host has enqueued it and the GPU is free. An event's timestamp is the
moment the stream reaches it. Reading ``elapsed_time`` before the end event has
completed on the host raises, as CUDA does. With this model the three GPU numbers
have exact values worked out by hand (see each test), and the order of records,
synchronisations and flushes is logged.
"""
from __future__ import annotations

import contextlib
import types

import pytest

from xpucalc.bench import cuda_timing, torch_backend
from xpucalc.bench.environment import Environment

US = 1e-6


class FakeGpu:
    def __init__(self, launch=10 * US, kernel=2 * US, cold_kernel=5 * US, flush_time=30 * US, graph_launch=4 * US):
        self.launch, self.kernel, self.cold_kernel = launch, kernel, cold_kernel
        self.flush_time, self.graph_launch = flush_time, graph_launch
        self.host = 0.0
        self.gpu_free = 0.0
        self.cold = False
        self.log: list[tuple] = []
        self.current_device = 0
        self.capturing: list | None = None

    def _run(self, duration):
        start = max(self.host, self.gpu_free)
        self.gpu_free = start + duration

    def call(self):
        """The function under test: one kernel (slower right after a flush: data come from HBM)."""
        if self.capturing is not None:
            self.capturing.append("fn")
            return
        self.host += self.launch
        self._run(self.cold_kernel if self.cold else self.kernel)
        self.cold = False
        self.log.append(("fn", self.current_device))

    def flush(self):
        self.host += self.launch
        self._run(self.flush_time)
        self.cold = True
        self.log.append(("flush", self.current_device))


class FakeEvent:
    def __init__(self, gpu, enable_timing=False):
        assert enable_timing, "timing events need enable_timing=True"
        self.gpu, self.t, self.device = gpu, None, None

    def record(self):
        self.t = max(self.gpu.host, self.gpu.gpu_free)
        self.device = self.gpu.current_device
        self.gpu.log.append(("record", self.device))

    def synchronize(self):
        self.gpu.host = max(self.gpu.host, self.t)
        self.gpu.log.append(("event-sync", self.device))

    def elapsed_time(self, end):
        for e in (self, end):
            if e.t is None or self.gpu.host < e.t:
                raise RuntimeError("Both events must be completed before calculating elapsed time.")
        return (end.t - self.t) * 1e3  # milliseconds, as torch.cuda.Event


class FakeGraph:
    def __init__(self, gpu):
        self.gpu, self.ops = gpu, []

    def replay(self):
        g = self.gpu
        g.host += g.graph_launch
        for _ in self.ops:
            g._run(g.cold_kernel if g.cold else g.kernel)
            g.cold = False
        g.log.append(("replay", g.current_device, len(self.ops)))


class FakeStream:
    def wait_stream(self, other):
        pass


def fake_cuda(gpu):
    """An object with the parts of torch.cuda that xpucalc.bench.cuda_timing uses."""

    @contextlib.contextmanager
    def device(index):
        before = gpu.current_device
        gpu.current_device = index
        gpu.log.append(("device", index))
        try:
            yield
        finally:
            gpu.current_device = before

    def synchronize(index=None):
        gpu.host = max(gpu.host, gpu.gpu_free)
        gpu.log.append(("sync", index))

    @contextlib.contextmanager
    def graph(g):
        gpu.capturing = g.ops
        try:
            yield
        finally:
            gpu.capturing = None

    @contextlib.contextmanager
    def stream(s):
        yield

    return types.SimpleNamespace(
        Event=lambda enable_timing=False: FakeEvent(gpu, enable_timing), synchronize=synchronize, device=device,
        CUDAGraph=lambda: FakeGraph(gpu), graph=graph, Stream=FakeStream, stream=stream,
        current_stream=lambda: FakeStream())


# --------------------------------------------------------------------------- the three numbers, by hand

def test_per_call_is_launch_plus_kernel():
    # idle GPU: start event at t; the host spends 10 us launching; the 2 us kernel runs; end event at t + 12 us
    gpu = FakeGpu()
    s = cuda_timing.per_call(gpu.call, 4, device=0, cuda=fake_cuda(gpu))
    assert s == pytest.approx([12 * US] * 4)


def test_back_to_back_is_launch_bound():
    # 50 calls: the host needs 10 us per launch, the GPU 2 us per kernel, so the queue never fills:
    # end = start + 50 * 10 us + the last kernel's 2 us -> 502 us / 50 = 10.04 us per call
    gpu = FakeGpu()
    s = cuda_timing.back_to_back(gpu.call, 3, 50, device=0, cuda=fake_cuda(gpu))
    assert s == pytest.approx([10.04 * US] * 3)


def test_graph_replay_is_kernel_time():
    # one replay: 4 us graph launch on the host, then 50 kernels of 2 us back to back on the GPU:
    # end = start + 4 + 100 us -> 104 / 50 = 2.08 us per call
    gpu = FakeGpu()
    cuda = fake_cuda(gpu)
    g = cuda_timing.capture_graph(gpu.call, 50, device=0, cuda=cuda)
    assert len(g.ops) == 50
    s = cuda_timing.graph_replay(g, 3, 50, device=0, cuda=cuda)
    assert s == pytest.approx([2.08 * US] * 3)


def test_l2_cold_flush_is_outside_the_interval():
    # flush: 10 us launch, then 30 us on the GPU; the start event waits for it (t0 = flush end);
    # the call's launch overlaps the flush, so only the cold kernel (5 us) lies between the events
    gpu = FakeGpu()
    s = cuda_timing.per_call(gpu.call, 3, device=0, flush=gpu.flush, cuda=fake_cuda(gpu))
    assert s == pytest.approx([5 * US] * 3)
    steps = [e[0] for e in gpu.log if e[0] in ("flush", "record", "fn", "event-sync")]
    assert steps == ["flush", "record", "fn", "record", "event-sync"] * 3


def test_graph_replay_after_flush_sees_the_cold_kernel():
    gpu = FakeGpu()
    cuda = fake_cuda(gpu)
    one = cuda_timing.capture_graph(gpu.call, 1, device=0, cuda=cuda)
    s = cuda_timing.graph_replay(one, 2, 1, device=0, flush=gpu.flush, cuda=cuda)
    assert s == pytest.approx([5 * US] * 2)
    assert [e[0] for e in gpu.log if e[0] in ("flush", "record", "replay")] == ["flush", "record", "replay",
                                                                                "record"] * 2


def test_end_event_is_waited_for_before_reading_it():
    gpu = FakeGpu()
    cuda_timing.per_call(gpu.call, 2, device=0, cuda=fake_cuda(gpu))
    # each repetition: record start, call, record end, wait on the end event -- nothing read before that
    reps = [e[0] for e in gpu.log if e[0] in ("record", "fn", "event-sync")]
    assert reps == ["record", "fn", "record", "event-sync"] * 2
    # and the fake does refuse an early read, as CUDA does
    e0, e1 = FakeEvent(gpu, True), FakeEvent(gpu, True)
    e0.record()
    gpu.call()
    e1.record()
    with pytest.raises(RuntimeError, match="completed"):
        e0.elapsed_time(e1)


@pytest.mark.parametrize("timer", ["per_call", "back_to_back", "graph_replay"])
def test_device_index_is_respected(timer):
    gpu = FakeGpu()
    cuda = fake_cuda(gpu)
    if timer == "per_call":
        cuda_timing.per_call(gpu.call, 2, device=1, cuda=cuda)
    elif timer == "back_to_back":
        cuda_timing.back_to_back(gpu.call, 2, 5, device=1, cuda=cuda)
    else:
        g = cuda_timing.capture_graph(gpu.call, 5, device=1, cuda=cuda)
        cuda_timing.graph_replay(g, 2, 5, device=1, cuda=cuda)
    assert ("sync", 1) in gpu.log and all(e[1] == 1 for e in gpu.log if e[0] in ("record", "fn", "replay"))
    assert not any(e[0] == "sync" and e[1] != 1 for e in gpu.log)


def test_flush_buffer_is_twice_the_l2():
    assert cuda_timing.flush_bytes(40 * 2**20) == 80 * 2**20  # A100: 40 MiB L2 -> 80 MiB buffer
    assert cuda_timing.flush_bytes(None) == cuda_timing.FLUSH_DEFAULT_BYTES == 256 * 2**20


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
    assert g.per_call_host is not None and g.batch == 50 and notes == []
    assert all(e[1] == 1 for e in gpu.log if e[0] in ("record", "fn", "flush", "replay"))
    # per_call >= back_to_back >= kernel: the ordering the labs teach
    assert g.per_call.median_s > g.back_to_back.median_s > g.kernel.median_s


def test_gpu_steady_reports_a_failed_graph_capture():
    gpu = FakeGpu()
    cuda = fake_cuda(gpu)

    def no_graph():
        raise RuntimeError("operation not permitted when stream is capturing")
    cuda.CUDAGraph = no_graph
    fake_torch = types.SimpleNamespace(empty=lambda n, dtype, device: types.SimpleNamespace(zero_=gpu.flush),
                                       uint8=None, cuda=cuda)
    notes: list[str] = []
    g = torch_backend._gpu_steady(fake_torch, gpu.call, Environment("torch", "x", "cuda", "F", 1), 10, 5, notes,
                                  0.1, "t", cuda=cuda)
    assert g.kernel is None and g.kernel_l2_cold is None
    assert len(notes) == 1 and "CUDA 그래프" in notes[0] and "capturing" in notes[0]


# --------------------------------------------------------------------------- FP32 precision, set and restored

def _fake_precision_torch(new_api: bool):
    calls = []
    matmul = types.SimpleNamespace(allow_bf16_reduced_precision_reduction=False)
    if new_api:
        matmul.fp32_precision = "tf32"
    state = {"p": "medium"}

    def setp(p):
        calls.append(p)
        state["p"] = p
    t = types.SimpleNamespace(backends=types.SimpleNamespace(cuda=types.SimpleNamespace(matmul=matmul)),
                              get_float32_matmul_precision=lambda: state["p"], set_float32_matmul_precision=setp)
    return t, matmul, state, calls


def test_matmul_precision_new_api_sets_ieee_and_restores():
    t, matmul, state, calls = _fake_precision_torch(new_api=True)
    with torch_backend.matmul_precision(t, "fp32") as settings:
        assert matmul.fp32_precision == "ieee"
        assert dict(settings)["cuda.matmul.fp32_precision"] == "ieee"
        assert dict(settings)["cuda.matmul.allow_bf16_reduced_precision_reduction"] == "False"
    assert matmul.fp32_precision == "tf32" and calls == []  # the legacy setter is never used


def test_matmul_precision_restores_after_an_error():
    t, matmul, _, _ = _fake_precision_torch(new_api=True)
    with pytest.raises(KeyError):
        with torch_backend.matmul_precision(t, "fp32"):
            raise KeyError("boom")
    assert matmul.fp32_precision == "tf32"


def test_matmul_precision_old_api_fallback():
    t, matmul, state, calls = _fake_precision_torch(new_api=False)
    with torch_backend.matmul_precision(t, "fp32") as settings:
        assert state["p"] == "highest" and dict(settings)["float32_matmul_precision"] == "highest"
    assert state["p"] == "medium" and calls == ["highest", "medium"]


def test_matmul_precision_bf16_leaves_fp32_setting_alone():
    t, matmul, _, _ = _fake_precision_torch(new_api=True)
    with torch_backend.matmul_precision(t, "bf16") as settings:
        assert matmul.fp32_precision == "tf32" and dict(settings)["cuda.matmul.fp32_precision"] == "tf32"


# --------------------------------------------------------------------------- environment of a CUDA device

def test_cuda_environment_records_the_named_device(monkeypatch):
    torch = pytest.importorskip("torch")
    from xpucalc.bench import environment

    asked = []
    props = types.SimpleNamespace(name="Tesla T4", major=7, minor=5, total_memory=15_836_381_184,
                                  multi_processor_count=40, L2_cache_size=4 * 2**20)

    def get_props(i):
        asked.append(i)
        return props
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "get_device_properties", get_props)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 2)
    monkeypatch.setattr(torch.cuda, "current_device", lambda: 0)
    monkeypatch.setattr(environment, "nvidia_smi", lambda i, f: ["550.54.15", "585 MHz", "1590 MHz"])
    env = environment.torch_environment("cuda:1")
    assert asked == [1] and env.device_index == 1
    assert env.compute_capability == (7, 5) and env.l2_bytes == 4 * 2**20
    assert env.driver == "550.54.15" and env.sm_clock_hz == 585e6 and env.sm_clock_max_hz == 1590e6
    assert env.bf16_emulated
    text = env.summary()
    assert "BF16" in text and "에뮬레이션" in text and "7.5" in text and "550.54.15" in text
    a100 = Environment("torch", "x", "cuda", "A100", 1, compute_capability=(8, 0))
    assert not a100.bf16_emulated and a100.caveats() == ()
