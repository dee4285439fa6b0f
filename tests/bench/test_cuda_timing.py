"""xpucalc.bench.cuda_timing: the three GPU numbers, run here with the CUDA calls faked (``_fake_cuda.FakeGpu``).

The fake is a timeline model (launch 10 µs on the host, kernel 2 µs, cold kernel 5 µs, flush 30 µs, graph
launch 4 µs), so every number below is worked out by hand in the comment beside it.
"""
from __future__ import annotations

import pytest
from _fake_cuda import US, FakeEvent, FakeGpu, fake_cuda, no_graph

from xpucalc.bench import cuda_timing


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
    assert gpu.steps("flush", "record", "fn", "event-sync") == ["flush", "record", "fn", "record", "event-sync"] * 3


def test_graph_replay_after_flush_sees_the_cold_kernel():
    gpu = FakeGpu()
    cuda = fake_cuda(gpu)
    one = cuda_timing.capture_graph(gpu.call, 1, device=0, cuda=cuda)
    s = cuda_timing.graph_replay(one, 2, 1, device=0, flush=gpu.flush, cuda=cuda)
    assert s == pytest.approx([5 * US] * 2)
    assert gpu.steps("flush", "record", "replay") == ["flush", "record", "replay", "record"] * 2


def test_end_event_is_waited_for_before_reading_it():
    gpu = FakeGpu()
    cuda_timing.per_call(gpu.call, 2, device=0, cuda=fake_cuda(gpu))
    # each repetition: record start, call, record end, wait on the end event -- nothing read before that
    assert gpu.steps("record", "fn", "event-sync") == ["record", "fn", "record", "event-sync"] * 2
    # and the fake does refuse an early read, as CUDA does
    e0, e1 = FakeEvent(gpu, True), FakeEvent(gpu, True)
    e0.record()
    gpu.call()
    e1.record()
    with pytest.raises(RuntimeError, match="completed"):
        e0.elapsed_time(e1)


@pytest.mark.parametrize("timer", ["per_call", "back_to_back", "graph_replay", "three_numbers"])
def test_device_index_is_respected(timer):
    gpu = FakeGpu()
    cuda = fake_cuda(gpu)
    if timer == "per_call":
        cuda_timing.per_call(gpu.call, 2, device=1, cuda=cuda)
    elif timer == "back_to_back":
        cuda_timing.back_to_back(gpu.call, 2, 5, device=1, cuda=cuda)
    elif timer == "graph_replay":
        g = cuda_timing.capture_graph(gpu.call, 5, device=1, cuda=cuda)
        cuda_timing.graph_replay(g, 2, 5, device=1, cuda=cuda)
    else:
        cuda_timing.three_numbers(gpu.call, 2, 5, device=1, cuda=cuda)
    assert ("sync", 1) in gpu.log and all(e[1] == 1 for e in gpu.log if e[0] in ("record", "fn", "replay"))
    assert not any(e[0] == "sync" and e[1] != 1 for e in gpu.log)


def test_three_numbers_per_call_back_to_back_kernel():
    # per call: 10 + 2 = 12 us. Back to back, 5 calls: 5 x 10 us launches + the last 2 us kernel = 52 / 5 = 10.4 us.
    # Graph of 5: 4 us launch + 5 x 2 us kernels = 14 / 5 = 2.8 us. 3 per-call reps, 2 groups of each of the others
    gpu = FakeGpu()
    three = cuda_timing.three_numbers(gpu.call, 3, 5, groups=2, device=0, cuda=fake_cuda(gpu))
    assert three.per_call == pytest.approx([12 * US] * 3)
    assert three.back_to_back == pytest.approx([10.4 * US] * 2)
    assert three.kernel == pytest.approx([2.8 * US] * 2) and three.error is None
    assert three.per_call[0] > three.back_to_back[0] > three.kernel[0]   # the ordering the labs teach
    assert gpu.steps("replay") == ["replay"] * 2
    # groups default to reps
    assert len(cuda_timing.three_numbers(gpu.call, 3, 5, cuda=fake_cuda(gpu)).back_to_back) == 3


def test_three_numbers_returns_a_failed_capture():
    gpu = FakeGpu()
    cuda = fake_cuda(gpu)
    cuda.CUDAGraph = no_graph
    per, b2b, kernel, error = cuda_timing.three_numbers(gpu.call, 1, 2, cuda=cuda)
    assert per == pytest.approx([12 * US]) and b2b == pytest.approx([11 * US])   # (2 x 10 + 2) / 2
    assert kernel is None and isinstance(error, RuntimeError) and "capturing" in str(error)


def test_flush_buffer_is_twice_the_l2():
    assert cuda_timing.flush_bytes(40 * 2**20) == 80 * 2**20  # A100: 40 MiB L2 -> 80 MiB buffer
    assert cuda_timing.flush_bytes(None) == cuda_timing.FLUSH_DEFAULT_BYTES == 256 * 2**20
    assert cuda_timing.flush_bytes(0) == cuda_timing.FLUSH_DEFAULT_BYTES


def test_l2_flusher_overwrites_a_buffer_of_the_size_on_the_device():
    made = []

    class Buf:
        def __init__(self, n, dtype, device):
            made.append((n, dtype, device))

        def zero_(self):
            return "zeroed"

    fake_torch = type("T", (), {"empty": Buf, "uint8": "uint8"})
    flush = cuda_timing.l2_flusher(80 * 2**20, "cuda:1", fake_torch)
    assert made == [(80 * 2**20, "uint8", "cuda:1")] and flush() == "zeroed"
