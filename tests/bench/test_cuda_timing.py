"""xpucalc.bench.cuda_timing: the three GPU numbers, run here with the CUDA calls faked (``_fake_cuda.FakeGpu``).

The fake is a timeline model of a GPU and its host (launch 10 µs on the host, kernel 2 µs, cold kernel 5 µs,
flush 120 MB at 4 TB/s = 30 µs, graph launch 4 µs), written from CUDA's semantics, so every number below is
worked out by hand in the comment beside it.
"""
from __future__ import annotations

import pytest
from _fake_cuda import US, FakeEvent, FakeGpu, fake_cuda, fake_torch

from xpucalc.bench import cuda_timing


def naive_per_call(fn, reps, cuda, flush=None):
    """The per-call loop as it stood before issue 20 (events made in the loop, flush not waited for).

    Kept here to show that the fake reproduces the two defects the fix removes.
    """
    samples = []
    with cuda.device(0):
        cuda.synchronize(0)
        for _ in range(reps):
            start, end = cuda.Event(enable_timing=True), cuda.Event(enable_timing=True)
            if flush is not None:
                flush()
            start.record()
            fn()
            end.record()
            end.synchronize()
            samples.append(start.elapsed_time(end) * 1e-3)
    return samples


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
    assert g.ops == ["fn"] * 50
    s = cuda_timing.graph_replay(g, 3, 50, device=0, cuda=cuda)
    assert s == pytest.approx([2.08 * US] * 3)


# --------------------------------------------------------------------------- L2 cold (issue 20, defect 4)

def test_the_fake_shows_an_unwaited_flush_hiding_the_launch():
    # the old loop: flush enqueued (GPU busy 30 us), start event reached when the flush ends; the call's 10 us
    # launch ran on the host meanwhile, so only the 5 us cold kernel lies between the events: cold < warm
    gpu = FakeGpu()
    cuda = fake_cuda(gpu)
    warm = naive_per_call(gpu.call, 3, cuda)
    cold = naive_per_call(gpu.call, 3, cuda, flush=gpu.flush)
    assert warm == pytest.approx([12 * US] * 3) and cold == pytest.approx([5 * US] * 3)
    assert max(cold) < min(warm)


def test_per_call_l2_cold_waits_for_the_flush():
    # flush, then wait for it: the GPU is idle at the start event, the launch (10 us) and the cold kernel (5 us)
    # are both inside: 15 us, above the warm 12 us
    gpu = FakeGpu()
    cuda = fake_cuda(gpu)
    cold = cuda_timing.per_call(gpu.call, 3, device=0, flush=gpu.flush, cuda=cuda)
    warm = cuda_timing.per_call(gpu.call, 3, device=0, cuda=cuda)
    assert cold == pytest.approx([15 * US] * 3) and warm == pytest.approx([12 * US] * 3)
    # the cold run came first: after its opening sync, each repetition is flush, wait, start, call, end, wait
    kinds = ("flush", "sync", "record", "fn", "event-sync")
    assert [s for s in _after_first_sync(gpu, 0) if s in kinds][:18] == \
        ["flush", "sync", "record", "fn", "record", "event-sync"] * 3


def _after_first_sync(gpu, start):
    """The logged step names after the first ``sync`` at or after index ``start`` of the log."""
    names = [e[0] for e in gpu.log]
    i = names.index("sync", start)
    return names[i + 1:]


@pytest.mark.parametrize("launch, kernel, cold_kernel, flush_bytes", [
    (10 * US, 2 * US, 5 * US, 120e6),       # launch-bound call, long flush
    (3 * US, 40 * US, 55 * US, 4e6),        # kernel-bound call, flush shorter than the launch
    (8 * US, 8 * US, 8 * US, 400e6),        # no L2 effect at all
])
def test_per_call_cold_is_never_below_warm(launch, kernel, cold_kernel, flush_bytes):
    gpu = FakeGpu(launch=launch, kernel=kernel, cold_kernel=cold_kernel, flush_bytes=flush_bytes)
    cuda = fake_cuda(gpu)
    warm = cuda_timing.per_call(gpu.call, 5, cuda=cuda)
    cold = cuda_timing.per_call(gpu.call, 5, flush=gpu.flush, cuda=cuda)
    assert min(cold) >= max(warm) - 1e-15   # (float rounding of the clocks only)
    assert cold == pytest.approx([launch + cold_kernel] * 5)


def test_graph_replay_after_flush_overlaps_it_and_sees_the_cold_kernel():
    # kernel time keeps do_bench's form: the flush is enqueued, not waited for; the start event is reached when
    # it ends, the replay is already queued: only the cold kernel (5 us) is inside
    gpu = FakeGpu()
    cuda = fake_cuda(gpu)
    one = cuda_timing.capture_graph(gpu.call, 1, device=0, cuda=cuda)
    n = len(gpu.log)
    s = cuda_timing.graph_replay(one, 2, 1, device=0, flush=gpu.flush, cuda=cuda)
    assert s == pytest.approx([5 * US] * 2)
    timed = [e[0] for e in gpu.log[n:]]
    timed = timed[timed.index("sync") + 1:]
    assert [t for t in timed if t in ("flush", "sync", "record", "replay")] == \
        ["flush", "record", "replay", "record"] * 2


# --------------------------------------------------------------------------- events outside the interval (defect 8)

def test_the_fake_charges_lazy_event_creation_inside_the_old_interval():
    # events made in the loop: the end event's CUDA event is created at its first record (5 us on the host),
    # after the call's launch: the end marker reaches the GPU at 10 + 5 = 15 us, after the 2 us kernel ended
    gpu = FakeGpu(event_new=3 * US, event_create=5 * US)
    assert naive_per_call(gpu.call, 3, fake_cuda(gpu)) == pytest.approx([15 * US] * 3)


@pytest.mark.parametrize("timer", ["per_call", "per_call_cold", "back_to_back", "graph_replay"])
def test_event_creation_stays_outside_every_interval(timer):
    # the same costs as above leave every timer at its cost-free value
    gpu = FakeGpu(event_new=3 * US, event_create=5 * US)
    cuda = fake_cuda(gpu)
    if timer == "per_call":
        assert cuda_timing.per_call(gpu.call, 3, cuda=cuda) == pytest.approx([12 * US] * 3)
    elif timer == "per_call_cold":
        assert cuda_timing.per_call(gpu.call, 3, flush=gpu.flush, cuda=cuda) == pytest.approx([15 * US] * 3)
    elif timer == "back_to_back":
        assert cuda_timing.back_to_back(gpu.call, 3, 50, cuda=cuda) == pytest.approx([10.04 * US] * 3)
    else:
        g = cuda_timing.capture_graph(gpu.call, 50, cuda=cuda)
        assert cuda_timing.graph_replay(g, 3, 50, cuda=cuda) == pytest.approx([2.08 * US] * 3)


def test_end_event_is_waited_for_before_reading_it():
    gpu = FakeGpu()
    cuda_timing.per_call(gpu.call, 2, device=0, cuda=fake_cuda(gpu))
    # each repetition: record start, call, record end, wait on the end event -- nothing read before that
    assert [s for s in _after_first_sync(gpu, 0) if s in ("record", "fn", "event-sync")] == \
        ["record", "fn", "record", "event-sync"] * 2
    # and the fake does refuse an early read, as CUDA does
    e0, e1 = FakeEvent(gpu, True), FakeEvent(gpu, True)
    with pytest.raises(RuntimeError, match="recorded"):
        e0.elapsed_time(e1)
    e0.record()
    gpu.call()
    e1.record()
    with pytest.raises(RuntimeError, match="completed"):
        e0.elapsed_time(e1)
    e1.synchronize()
    assert e0.elapsed_time(e1) == pytest.approx(12e-3)   # milliseconds


@pytest.mark.parametrize("timer", ["per_call", "back_to_back", "graph_replay", "three_numbers"])
def test_device_index_is_respected(timer):
    gpu = FakeGpu()
    cuda = fake_cuda(gpu)
    if timer == "per_call":
        cuda_timing.per_call(gpu.call, 2, device=1, flush=gpu.flush, cuda=cuda)
    elif timer == "back_to_back":
        cuda_timing.back_to_back(gpu.call, 2, 5, device=1, cuda=cuda)
    elif timer == "graph_replay":
        g = cuda_timing.capture_graph(gpu.call, 5, device=1, cuda=cuda)
        cuda_timing.graph_replay(g, 2, 5, device=1, cuda=cuda)
    else:
        cuda_timing.three_numbers(gpu.call, 2, 5, device=1, cuda=cuda)
    assert ("sync", 1) in gpu.log and all(e[1] == 1 for e in gpu.log if e[0] in ("record", "fn", "flush", "replay"))
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


# --------------------------------------------------------------------------- capture rules

@pytest.mark.parametrize("inside", ["synchronize", "host read", "allocation outside the pool", "event wait"])
def test_three_numbers_returns_a_capture_that_breaks_the_rules(inside):
    gpu = FakeGpu()
    cuda = fake_cuda(gpu)
    ev = cuda.Event(enable_timing=True)
    ev.record()
    extra = {"synchronize": lambda: cuda.synchronize(), "host read": gpu.item,
             "allocation outside the pool": lambda: gpu.alloc(64, pool=False), "event wait": ev.synchronize}[inside]

    def fn():
        gpu.call()
        extra()

    per, b2b, kernel, error = cuda_timing.three_numbers(fn, 1, 2, cuda=cuda)
    # outside a capture the same calls are allowed (a host read adds its wait and 1 us copy)
    assert len(per) == len(b2b) == 1 and per[0] >= 11.99 * US and b2b[0] >= 10.99 * US
    assert kernel is None and isinstance(error, RuntimeError) and "capturing" in str(error)


def test_capture_allows_allocations_from_the_graph_pool():
    gpu = FakeGpu()

    def fn():
        gpu.alloc(64)          # the caching allocator: the graph's private pool during capture
        gpu.call()

    three = cuda_timing.three_numbers(fn, 2, 4, cuda=fake_cuda(gpu))
    assert three.error is None and three.kernel == pytest.approx([(4 + 4 * 2) / 4 * US] * 2)


def test_three_numbers_without_capture():
    gpu = FakeGpu()
    three = cuda_timing.three_numbers(gpu.call, 2, 4, cuda=fake_cuda(gpu), capture=False)
    assert three.kernel is None and three.error is None and gpu.steps("replay") == []


# --------------------------------------------------------------------------- the flush buffer

def test_flush_buffer_is_twice_the_l2():
    assert cuda_timing.flush_bytes(40 * 2**20) == 80 * 2**20  # A100: 40 MiB L2 -> 80 MiB buffer
    assert cuda_timing.flush_bytes(None) == cuda_timing.FLUSH_DEFAULT_BYTES == 256 * 2**20
    assert cuda_timing.flush_bytes(0) == cuda_timing.FLUSH_DEFAULT_BYTES


def test_l2_flusher_overwrites_a_buffer_of_the_size_on_the_device():
    # 80 MiB at 4 TB/s: 20.97 us of GPU time per flush, enqueued without waiting
    gpu = FakeGpu()
    torch = fake_torch(gpu)
    flush = cuda_timing.l2_flusher(80 * 2**20, "cuda:1", torch)
    assert torch.made == [(80 * 2**20, "cuda:1")]
    host = gpu.host
    flush()
    assert gpu.host == pytest.approx(host + 10 * US)
    assert gpu.gpu_free == pytest.approx(host + 10 * US + 80 * 2**20 / 4e12)
