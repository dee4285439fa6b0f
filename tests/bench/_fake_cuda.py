"""A timeline model of one GPU and its host, standing in for ``torch.cuda`` in the GPU code paths' tests.

``FakeGpu``: every enqueued operation costs the host ``launch`` seconds; the GPU runs operations in order,
each starting when both the host has enqueued it and the GPU is free. An event's timestamp is the moment
the stream reaches it. Reading ``elapsed_time`` before the end event has completed on the host raises, as
CUDA does. With this model the three GPU numbers have exact values worked out by hand (see each test), and
the order of records, synchronisations and flushes is logged as ``(what, device index)``.
"""
from __future__ import annotations

import contextlib
import types

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

    def steps(self, *kinds):
        """The logged steps of the given kinds, in order."""
        return [e[0] for e in self.log if e[0] in kinds]


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


def no_graph():
    """A ``CUDAGraph`` constructor that fails as a capture inside a capturing stream does."""
    raise RuntimeError("operation not permitted when stream is capturing")
