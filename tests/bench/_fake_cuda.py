"""A timeline model of one GPU and its host, standing in for ``torch.cuda`` in the GPU code paths' tests.

Written from CUDA's and PyTorch's documented semantics, not from what ``xpucalc`` does:

* **Two clocks.** ``host`` is the CPU's time; the GPU runs what was enqueued, in stream order, one kernel at
  a time (a kernel that fills the GPU), each starting when the host has enqueued it, the stream's previous
  work has finished and the GPU is free. Enqueuing costs the host ``launch`` seconds and returns at once
  (kernel launches are asynchronous); the host waits only in ``synchronize``, ``Event.synchronize`` and
  host reads (``.item()``, ``.cpu()``).
* **Events.** ``record()`` enqueues a marker; its timestamp is the moment the stream reaches it
  (``max(host at enqueue, stream's last work)``). ``elapsed_time`` is the difference in milliseconds and
  raises, as ``torch.cuda.Event`` does, unless both events were recorded and have completed on the host's
  clock. Making an ``Event`` object costs ``event_new`` on the host, and the CUDA event behind it is created
  lazily at its first ``record`` (PyTorch's documented behaviour), which costs ``event_create`` more.
* **L2 flush.** ``flush()`` (or ``zero_()`` of a buffer from ``fake_torch``) is one kernel of
  ``nbytes / hbm_bytes_per_s`` seconds; the next call of the function under test finds its data in HBM
  (``cold_kernel`` instead of ``kernel``).
* **Streams.** ``wait_stream`` makes later work on a stream wait for the other stream's work so far;
  ``torch.cuda.stream(s)`` switches the current stream.
* **Graph capture** (``cuda.graph(g)``, global capture mode as ``torch.cuda.graph`` uses): entering
  synchronizes and switches to a side stream; kernels enqueued during the capture are recorded into the
  graph, not run. ``synchronize``, ``Event.synchronize``/``elapsed_time``, a host read, an allocation outside
  the graph's private pool (``alloc(pool=False)``, e.g. pinned host memory) and work on the legacy default
  stream raise ``RuntimeError`` with CUDA's ``cudaErrorStreamCaptureUnsupported`` /
  ``cudaErrorStreamCaptureImplicit`` texts and invalidate the capture. ``replay()`` costs the host
  ``graph_launch`` and runs the recorded kernels back to back.

The steps are logged as ``(what, device index)``: ``fn``, ``flush``, ``record``, ``event-sync``, ``sync``,
``device``, ``replay`` (with the number of kernels).
"""
from __future__ import annotations

import contextlib
import types

US = 1e-6

#: CUDA's texts for the calls a stream capture forbids (cudaErrorStreamCaptureUnsupported / ...Implicit).
CAPTURE_UNSUPPORTED = "CUDA error: operation not permitted when stream is capturing"
CAPTURE_IMPLICIT = "CUDA error: operation would make the legacy stream depend on a capturing blocking stream"


class FakeStream:
    """A CUDA stream: ``tail`` is the GPU time at which everything enqueued on it so far has finished."""

    def __init__(self, gpu, device, default=False):
        self.gpu, self.device, self.default, self.tail = gpu, device, default, 0.0

    def wait_stream(self, other):
        self.tail = max(self.tail, other.tail)

    def synchronize(self):
        self.gpu._forbidden_in_capture()
        self.gpu.host = max(self.gpu.host, self.tail)


class FakeGpu:
    """One GPU and its host (times in seconds; see the module docstring).

    Args:
        launch: host time to enqueue one kernel. kernel / cold_kernel: GPU time of the function under
        test with its data in L2 / in HBM (right after a flush). flush_bytes, hbm_bytes_per_s: the default
        flush buffer and the HBM bandwidth (a flush takes ``flush_bytes / hbm_bytes_per_s``). graph_launch:
        host time of one ``replay()``. event_new: host time to make an ``Event`` object. event_create: host
        time of the lazy ``cudaEventCreate`` at an event's first ``record``. record: host time of one
        ``record``. host_read: host time of a device-to-host read after the stream has finished.
    """

    def __init__(self, launch=10 * US, kernel=2 * US, cold_kernel=5 * US, flush_bytes=120e6,
                 hbm_bytes_per_s=4e12, graph_launch=4 * US, event_new=0.0, event_create=0.0, record=0.0,
                 host_read=1 * US):
        self.launch, self.kernel, self.cold_kernel = launch, kernel, cold_kernel
        self.flush_bytes, self.hbm_bytes_per_s, self.graph_launch = flush_bytes, hbm_bytes_per_s, graph_launch
        self.event_new, self.event_create, self.record_cost, self.host_read = event_new, event_create, record, host_read
        self.host = 0.0
        self.gpu_free = 0.0
        self.cold = False
        self.log: list[tuple] = []
        self.current_device = 0
        self.streams: list[FakeStream] = []
        self.current: dict[int, FakeStream] = {}     # the current stream of each device
        self.capture = None          # the FakeGraph being captured
        self.capture_stream = None
        self.capture_error = None

    @property
    def stream(self):
        """The current stream of the current device (its legacy default stream unless switched)."""
        return self.current_stream(self.current_device)

    def current_stream(self, device=None):
        device = self.current_device if device is None else device
        if device not in self.current:
            self.current[device] = self.new_stream(device, default=True)
        return self.current[device]

    def new_stream(self, device=None, default=False):
        s = FakeStream(self, self.current_device if device is None else device, default)
        self.streams.append(s)
        return s

    @property
    def flush_time(self):
        """GPU seconds of one default flush: ``flush_bytes / hbm_bytes_per_s``."""
        return self.flush_bytes / self.hbm_bytes_per_s

    # ------------------------------------------------------------------ the timeline

    def _forbidden_in_capture(self, what=CAPTURE_UNSUPPORTED):
        if self.capture is not None:
            self.capture_error = RuntimeError(what)
            raise self.capture_error

    def _enqueue(self, duration, kind):
        """One kernel of ``duration`` GPU seconds on the current stream; True if it was run (not captured)."""
        if self.capture is not None:
            if self.stream is not self.capture_stream:
                if self.stream.default:
                    self._forbidden_in_capture(CAPTURE_IMPLICIT)
            else:
                self.capture.ops.append(kind)
                return False
        self.host += self.launch
        start = max(self.host, self.stream.tail, self.gpu_free)
        self.gpu_free = self.stream.tail = start + duration
        return True

    def _run_fn(self):
        duration = self.cold_kernel if self.cold else self.kernel
        self.cold = False
        return duration

    def call(self):
        """The function under test: one kernel (slower right after a flush: its data come from HBM)."""
        if self._enqueue(self.cold_kernel if self.cold else self.kernel, "fn"):
            self._run_fn()
            self.log.append(("fn", self.current_device))

    def flush(self, nbytes=None):
        """Overwrite ``nbytes`` (default ``flush_bytes``) on the GPU: one kernel of ``nbytes / hbm_bytes_per_s``."""
        nbytes = self.flush_bytes if nbytes is None else nbytes
        if self._enqueue(nbytes / self.hbm_bytes_per_s, "flush"):
            self.cold = True
            self.log.append(("flush", self.current_device))

    def item(self):
        """A host read of a device value (``.item()``, ``.cpu()``): waits for the stream, then copies."""
        self._forbidden_in_capture()
        self.host = max(self.host, self.stream.tail) + self.host_read
        return 0.0

    def alloc(self, nbytes, pool=True):
        """An allocation: from PyTorch's caching allocator (``pool=True``: the graph's private pool during a
        capture) or outside it (``pool=False``: pinned host memory, a raw ``cudaMalloc``)."""
        if not pool:
            self._forbidden_in_capture()
        return bytearray(0)

    def steps(self, *kinds):
        """The logged steps of the given kinds, in order."""
        return [e[0] for e in self.log if e[0] in kinds]


class FakeEvent:
    """``torch.cuda.Event(enable_timing=True)``: created lazily at the first ``record``."""

    def __init__(self, gpu, enable_timing=False):
        assert enable_timing, "timing events need enable_timing=True"
        self.gpu, self.t, self.device, self.created = gpu, None, None, False
        gpu.host += gpu.event_new

    def record(self, stream=None):
        g = self.gpu
        stream = stream or g.stream
        if not self.created:
            g.host += g.event_create
            self.created = True
        g.host += g.record_cost
        if g.capture is not None and stream is g.capture_stream:
            g.capture.ops.append("record")
            return
        self.t = max(g.host, stream.tail)
        self.device = stream.device
        g.log.append(("record", self.device))

    def query(self):
        return self.t is None or self.gpu.host >= self.t

    def synchronize(self):
        self.gpu._forbidden_in_capture()
        if self.t is not None:
            self.gpu.host = max(self.gpu.host, self.t)
        self.gpu.log.append(("event-sync", self.device))

    def elapsed_time(self, end):
        self.gpu._forbidden_in_capture()
        if self.t is None or end.t is None:
            raise RuntimeError("Both events must be recorded before calculating elapsed time.")
        if not (self.query() and end.query()):
            raise RuntimeError("Both events must be completed before calculating elapsed time.")
        return (end.t - self.t) * 1e3  # milliseconds, as torch.cuda.Event


class FakeGraph:
    """``torch.cuda.CUDAGraph``: the kernels recorded during capture, run back to back by ``replay``."""

    def __init__(self, gpu):
        self.gpu, self.ops, self.captured = gpu, [], False

    def replay(self):
        g = self.gpu
        if not self.captured:
            raise RuntimeError("Called CUDAGraph::replay without a preceding successful capture.")
        g.host += g.graph_launch
        start = max(g.host, g.stream.tail, g.gpu_free)
        for op in self.ops:
            if op == "fn":
                start += g._run_fn()
            elif op == "flush":
                start += g.flush_time
                g.cold = True
        g.gpu_free = g.stream.tail = start
        g.log.append(("replay", g.current_device, len(self.ops)))


def fake_cuda(gpu):
    """An object with the parts of ``torch.cuda`` that xpucalc's GPU paths use, on ``gpu``'s timeline."""

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
        index = gpu.current_device if index is None else index
        gpu._forbidden_in_capture()
        gpu.host = max([gpu.host] + [s.tail for s in gpu.streams if s.device == index])
        gpu.log.append(("sync", index))

    @contextlib.contextmanager
    def stream(s):
        # torch.cuda.stream(s): s becomes the current stream of its device, and its device the current one
        before_device, before = gpu.current_device, gpu.current_stream(s.device)
        gpu.current_device, gpu.current[s.device] = s.device, s
        try:
            yield
        finally:
            gpu.current_device, gpu.current[s.device] = before_device, before

    @contextlib.contextmanager
    def graph(g):
        # torch.cuda.graph: synchronize, then capture on a side stream (global capture mode)
        synchronize()
        side = gpu.new_stream()
        side.wait_stream(gpu.stream)
        before, dev = gpu.stream, gpu.current_device
        gpu.current[dev], gpu.capture, gpu.capture_stream, gpu.capture_error = side, g, side, None
        try:
            yield
        finally:
            gpu.current[dev], gpu.capture, gpu.capture_stream = before, None, None
        if gpu.capture_error is not None:
            raise RuntimeError("CUDA error: operation failed due to a previous error during capture")
        g.captured = True

    return types.SimpleNamespace(
        Event=lambda enable_timing=False: FakeEvent(gpu, enable_timing), synchronize=synchronize, device=device,
        CUDAGraph=lambda: FakeGraph(gpu), graph=graph, Stream=lambda device=None: gpu.new_stream(device),
        stream=stream, current_stream=gpu.current_stream)


class FakeBuffer:
    """``torch.empty(nbytes, dtype=torch.uint8, device=...)`` on the fake GPU; ``zero_`` is a flush of its size."""

    def __init__(self, gpu, nbytes, device):
        self.gpu, self.nbytes, self.device = gpu, int(nbytes), device
        gpu.alloc(self.nbytes)

    def zero_(self):
        self.gpu.flush(self.nbytes)
        return self


def fake_torch(gpu):
    """The parts of ``torch`` that the flush and the GPU runner use: ``empty``, ``uint8``, ``cuda``."""
    made = []

    def empty(nbytes, dtype=None, device=None):
        buf = FakeBuffer(gpu, nbytes, device)
        made.append((buf.nbytes, device))
        return buf

    return types.SimpleNamespace(empty=empty, uint8="uint8", cuda=fake_cuda(gpu), made=made)


class FakePrecisionTorch:
    """PyTorch >= 2.9's FP32 matmul precision state, coupled as ``aten/src/ATen/Context.cpp`` couples it.

    One legacy value (``set_float32_matmul_precision``: highest/high/medium; the legacy ``allow_tf32`` flag
    writes it too) and the new per-backend values (``backends.cuda.matmul.fp32_precision``,
    ``backends.mkldnn.matmul.fp32_precision``; ``ieee``/``tf32``/``bf16``/``none``). The legacy setter writes
    both backends; a new-API write leaves the legacy value alone. Reading ``allow_tf32`` or
    ``get_float32_matmul_precision`` when the two disagree raises RuntimeError, as torch does.
    ``new_api=False`` is a PyTorch < 2.9 (no ``fp32_precision``; nothing raises).
    """

    _LEGACY = {"highest": ("ieee", "ieee"), "high": ("tf32", "tf32"), "medium": ("tf32", "bf16")}

    def __init__(self, new_api=True):
        self.new_api, self.legacy, self.calls = new_api, "highest", []
        state = self

        class Matmul:
            allow_bf16_reduced_precision_reduction = True

            def __getattr__(self, name):
                if name == "allow_tf32":
                    return state._allow_tf32()
                if name == "fp32_precision" and state.new_api:
                    return state.cuda
                raise AttributeError(name)

            def __setattr__(self, name, value):
                if name == "allow_tf32":
                    state.calls.append(("allow_tf32", value))
                    state.legacy = "high" if value else "highest"
                    state.cuda = "tf32" if value else "ieee"
                elif name == "fp32_precision" and state.new_api:
                    state.calls.append(("cuda", value))
                    state.cuda = value
                else:
                    object.__setattr__(self, name, value)

        class Mkldnn:
            def __getattr__(self, name):
                if name == "fp32_precision" and state.new_api:
                    return state.mkldnn
                raise AttributeError(name)

            def __setattr__(self, name, value):
                state.calls.append(("mkldnn", value))
                state.mkldnn = value

        self.cuda, self.mkldnn = "none", "none"
        self.backends = types.SimpleNamespace(cuda=types.SimpleNamespace(matmul=Matmul()),
                                              mkldnn=types.SimpleNamespace(matmul=Mkldnn()))

    def _tf32(self, value):
        return value == "tf32"

    def _allow_tf32(self):
        allow_new = self._tf32(self.cuda)
        if self.new_api and allow_new != (self.legacy != "highest"):
            raise RuntimeError("PyTorch is checking whether allow_tf32_new is enabled for cuBlas matmul, Current "
                               "status indicate that you have used mix of the legacy and new APIs")
        return allow_new if self.new_api else self.legacy != "highest"

    def get_float32_matmul_precision(self):
        if self.new_api:
            bad = (self.cuda == "tf32" and self.legacy == "highest") or \
                (self.mkldnn == "bf16" and self.legacy != "medium") or (self.mkldnn == "tf32" and self.legacy != "high")
            if bad:
                raise RuntimeError("PyTorch is checking the matmul precision without a specific backend name, "
                                   "Current status indicate that you have used mix of the legacy and new APIs")
        return self.legacy

    def set_float32_matmul_precision(self, value):
        self.calls.append(("legacy", value))
        self.legacy = value
        self.cuda, self.mkldnn = self._LEGACY[value]
