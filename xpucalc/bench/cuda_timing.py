"""CUDA-event timers: per-call latency, back-to-back time, CUDA-graph replay, L2 flush.

Every function takes the CUDA module as ``cuda`` (``torch.cuda`` by default) and
a ``device`` index, so the GPU code path is small, respects ``cuda:1``, and can be
tested on a machine without a GPU with a fake module that records what happened.
All functions return seconds *per call*. ``elapsed_time`` of CUDA events is in
milliseconds and is converted here.

What each timer measures (the course's three GPU numbers):

* :func:`per_call` -- ``start.record(); fn(); end.record(); end.synchronize()``
  for each repetition: Python dispatch + launch + kernel of one call that
  finds the GPU idle. A tiny kernel reads as its launch cost.
* :func:`back_to_back` -- ``batch`` calls between two events, / ``batch``: the
  CPU enqueues while the GPU runs, so the time is max(launch, kernel) per call.
* :func:`graph_replay` -- the ``batch`` calls captured once in a CUDA graph; the
  replay between two events / ``batch`` is nearly pure GPU time.

:func:`three_numbers` measures the three in that order.

L2-cold (``flush``, see ``l2_flusher``): each repetition first overwrites a
buffer of at least twice the L2 size, outside the timed interval, so the data
start in HBM. The two timers use the flush differently, on purpose:

* :func:`per_call` *waits* for the flush (``synchronize`` after it) before the
  start event, so each cold call still finds the GPU idle and its launch lies
  inside the interval. Without the wait the host would launch the call while
  the flush kernel runs, the launch would hide behind the flush, and the cold
  number could read *below* the warm one.
* :func:`graph_replay` (kernel time) enqueues the flush and does not wait, as
  ``triton.testing.do_bench`` does: the start event is reached when the flush
  ends and the replay is already queued, so the interval is the kernels alone.

Events: ``torch.cuda.Event`` creates its CUDA event lazily, at its first
``record`` (PyTorch's documentation). Every timer makes all its event pairs
and records each once *before* its timed loop, so no ``cudaEventCreate`` (and
no Python object creation) falls inside an interval or between a flush and
the start event.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

from ..units import MS
from .timing import check_count

#: Flush buffer = this many times the L2 size.
FLUSH_FACTOR = 2
#: Flush buffer when the L2 size is unknown, bytes (256 MiB: above every L2 of 2026's GPUs x 2).
FLUSH_DEFAULT_BYTES = 256 * 2**20


def _torch_cuda() -> Any:
    import torch

    return torch.cuda


def _elapsed_s(start: Any, end: Any) -> float:
    return float(start.elapsed_time(end)) * MS


def _event_pairs(cuda: Any, device: int, n: int) -> list[tuple[Any, Any]]:
    """``n`` (start, end) timing-event pairs on ``device``, each recorded once so that its CUDA event exists.

    ``torch.cuda.Event`` creates the CUDA event at its first ``record``; recording every event here, on
    ``device``'s current stream, keeps that creation out of the timed intervals that follow.
    """
    stream = cuda.current_stream(device)
    pairs = [(cuda.Event(enable_timing=True), cuda.Event(enable_timing=True)) for _ in range(n)]
    for start, end in pairs:
        start.record(stream)
        end.record(stream)
    return pairs


def _timed(fn: Callable[[], Any], reps: int, device: int, flush: Callable[[], Any] | None, wait_for_flush: bool,
           cuda: Any) -> list[float]:
    """``reps`` intervals ``start; fn(); end; wait``, seconds; ``[flush; [synchronize]]`` before each start."""
    pairs = _event_pairs(cuda, device, reps)
    samples = []
    with cuda.device(device):
        cuda.synchronize(device)
        for start, end in pairs:
            if flush is not None:
                flush()
                if wait_for_flush:
                    cuda.synchronize(device)
            start.record()
            fn()
            end.record()
            end.synchronize()
            samples.append(_elapsed_s(start, end))
    return samples


def per_call(fn: Callable[[], Any], reps: int, *, device: int = 0, flush: Callable[[], Any] | None = None,
             cuda: Any = None) -> list[float]:
    """Per-call latency: each repetition ``[flush; synchronize]; start; fn(); end; wait``, seconds per call.

    The GPU is idle at each start event, also after a flush: the flush is waited for before the interval,
    so the call's launch is inside it (per-call L2-cold >= per-call L2-warm). All event pairs are created
    before the loop (see the module docstring).

    Args:
        fn: the call to time (enqueues GPU work), no arguments.
        reps: timed repetitions (>= 1). Warm up before (untimed).
        device: CUDA device index; events are recorded on its current stream.
        flush: called before each repetition and waited for, outside the interval, e.g. ``l2_flusher``.
        cuda: the CUDA module (``torch.cuda`` when None).
    """
    reps = check_count(reps, "reps", 1)
    return _timed(fn, reps, device, flush, True, cuda or _torch_cuda())


def back_to_back(fn: Callable[[], Any], reps: int, batch: int, *, device: int = 0, cuda: Any = None) -> list[float]:
    """Back-to-back time: ``batch`` calls between two events, / ``batch``; one sample per repetition, seconds.

    Args:
        fn, device, cuda: as in :func:`per_call`.
        reps: repetitions, each a group of ``batch`` calls (>= 1).
        batch: calls per group (>= 1).
    """
    reps = check_count(reps, "reps", 1)
    batch = check_count(batch, "batch", 1)
    cuda = cuda or _torch_cuda()
    pairs = _event_pairs(cuda, device, reps)
    samples = []
    with cuda.device(device):
        cuda.synchronize(device)
        for start, end in pairs:
            start.record()
            for _ in range(batch):
                fn()
            end.record()
            end.synchronize()
            samples.append(_elapsed_s(start, end) / batch)
    return samples


def capture_graph(fn: Callable[[], Any], batch: int, *, device: int = 0, cuda: Any = None,
                  warmup: int = 3) -> Any:
    """A CUDA graph holding ``batch`` calls of ``fn`` (warmed up on a side stream first, as PyTorch requires)."""
    batch = check_count(batch, "batch", 1)
    cuda = cuda or _torch_cuda()
    with cuda.device(device):
        side = cuda.Stream()
        side.wait_stream(cuda.current_stream())
        with cuda.stream(side):
            for _ in range(warmup):
                fn()
        cuda.current_stream().wait_stream(side)
        cuda.synchronize(device)
        graph = cuda.CUDAGraph()
        with cuda.graph(graph):
            for _ in range(batch):
                fn()
        cuda.synchronize(device)
    return graph


def graph_replay(graph: Any, reps: int, batch: int, *, device: int = 0, flush: Callable[[], Any] | None = None,
                 cuda: Any = None) -> list[float]:
    """Kernel time: each repetition ``[flush]; start; graph.replay(); end; wait``, / ``batch``, seconds per call.

    The flush is enqueued and *not* waited for (as ``triton.testing.do_bench``): the start event is reached
    when the flush kernel ends, with the replay already queued behind it, so the interval holds the
    graph's kernels and not the host's launch.

    Args:
        graph: from ``capture_graph`` with the same ``batch``.
        reps: timed repetitions (>= 1).
        batch: calls captured in the graph (>= 1).
        device, cuda: as in :func:`per_call`.
        flush: enqueued before each repetition's start event (outside the interval, not waited for).
    """
    reps = check_count(reps, "reps", 1)
    batch = check_count(batch, "batch", 1)
    samples = _timed(graph.replay, reps, device, flush, False, cuda or _torch_cuda())
    return [t / batch for t in samples]


class ThreeNumbers(NamedTuple):
    """The samples of :func:`three_numbers`, seconds per call each.

    Attributes:
        per_call, back_to_back: from :func:`per_call` and :func:`back_to_back`.
        kernel: from :func:`graph_replay`; None when the graph could not be captured.
        error: why it could not (the exception), else None.
    """

    per_call: list[float]
    back_to_back: list[float]
    kernel: list[float] | None
    error: Exception | None


def three_numbers(fn: Callable[[], Any], reps: int, batch: int, *, groups: int | None = None, device: int = 0,
                  cuda: Any = None, capture: bool = True) -> ThreeNumbers:
    """The three GPU numbers of ``fn`` (already warm): per call, back to back, CUDA-graph replay.

    A failed graph capture (an allocator or a sync inside ``fn``) comes back in ``error``, not raised.

    Args:
        fn: the call to time (enqueues GPU work), no arguments.
        reps: per-call repetitions (>= 1).
        batch: calls per back-to-back group and per graph (>= 1).
        groups: back-to-back groups and graph replays (>= 1; None: ``reps``).
        device, cuda: as in :func:`per_call`.
        capture: False skips the CUDA graph (``kernel`` and ``error`` None), e.g. when ``fn`` already replays
            a CUDA graph of its own (``torch.compile(mode="reduce-overhead")``).
    """
    groups = reps if groups is None else groups
    per = per_call(fn, reps, device=device, cuda=cuda)
    b2b = back_to_back(fn, groups, batch, device=device, cuda=cuda)
    if not capture:
        return ThreeNumbers(per, b2b, None, None)
    try:
        graph = capture_graph(fn, batch, device=device, cuda=cuda)
        return ThreeNumbers(per, b2b, graph_replay(graph, groups, batch, device=device, cuda=cuda), None)
    except Exception as exc:  # noqa: BLE001 - capture can fail; the caller says so
        return ThreeNumbers(per, b2b, None, exc)


def flush_bytes(l2_bytes: float | None) -> int:
    """Size of the L2 flush buffer: :data:`FLUSH_FACTOR` x the L2 size, or :data:`FLUSH_DEFAULT_BYTES` if unknown."""
    if not l2_bytes or l2_bytes <= 0:
        return FLUSH_DEFAULT_BYTES
    return int(FLUSH_FACTOR * l2_bytes)


def l2_flusher(nbytes: int, device: str, torch: Any = None) -> Callable[[], Any]:
    """A call that overwrites a buffer of ``nbytes`` on ``device`` (evicting the L2 cache); enqueues one kernel."""
    if torch is None:
        import torch
    buf = torch.empty(int(nbytes), dtype=torch.uint8, device=device)
    return buf.zero_


__all__ = ["FLUSH_DEFAULT_BYTES", "FLUSH_FACTOR", "ThreeNumbers", "back_to_back", "capture_graph", "flush_bytes",
           "graph_replay", "l2_flusher", "per_call", "three_numbers"]
