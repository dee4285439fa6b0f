"""Every collective-communication formula of the package: bytes each rank sends, and the time it takes.

The one home of the ring factor (n - 1) / n (``tests/test_architecture.py`` pins it here):
``xpucalc.llm.serving`` and ``xpucalc.llm.parallelism`` call these functions, and
``xpucalc.bench.collectives`` reads ``busbw_factor`` from here.

Units: sizes in bytes, bandwidths in bytes/s one way per rank, times in seconds. A
``latency_s`` is the fixed cost of one collective or one send (NCCL's launch and
synchronisation), added once per call; it defaults to 0, the bandwidth-bound limit.

One rank moves nothing: for ``n_ranks == 1`` every volume is 0 bytes and every time is
0 s (no latency either, since no collective is launched). Sizes must be > 0 and
bandwidths > 0 whatever the rank count, so a bad argument is reported even at one rank.
"""
from __future__ import annotations

from .._check import non_negative, positive, positive_int


def allreduce_traffic_bytes(size_bytes: float, n_ranks: int) -> float:
    """Bytes each rank sends in a ring all-reduce: 2 (n-1)/n x size (reduce-scatter + all-gather).

    Args:
        size_bytes: size of the tensor reduced (e.g. the gradients), bytes.
        n_ranks: ranks in the ring (>= 1; one rank sends 0 bytes).
    """
    n = positive_int(n_ranks, "n_ranks")
    return 2.0 * (n - 1) / n * positive(size_bytes, "size_bytes")


def fsdp_traffic_bytes(size_bytes: float, n_ranks: int) -> float:
    """Bytes each rank sends per step with FSDP / ZeRO-3: 3 (n-1)/n x size.

    Parameters are all-gathered twice (forward and backward) and gradients reduce-scattered
    once, each (n-1)/n x size: 1.5 times the 2 (n-1)/n x size of a DDP all-reduce.

    Args:
        size_bytes: size of the sharded parameters (one full copy), bytes.
        n_ranks: ranks sharing the parameters (>= 1; one rank sends 0 bytes).
    """
    n = positive_int(n_ranks, "n_ranks")
    return 3.0 * (n - 1) / n * positive(size_bytes, "size_bytes")


def alltoall_send_bytes(size_bytes: float, n_ranks: int) -> float:
    """Bytes each rank sends in a uniform all-to-all: (n-1)/n x size (its own share stays home).

    Args:
        size_bytes: bytes one rank holds for every rank together (an even share per rank), bytes.
        n_ranks: ranks taking part (>= 1; one rank sends 0 bytes).
    """
    n = positive_int(n_ranks, "n_ranks")
    return positive(size_bytes, "size_bytes") * (n - 1) / n


def allreduce_time_s(size_bytes: float, bandwidth: float, n_ranks: int | None = None, *,
                     latency_s: float = 0.0) -> float:
    """Ring all-reduce time, seconds: latency + 2 (n-1)/n x size / bandwidth.

    Args:
        size_bytes: size of the tensor reduced (e.g. the gradients), bytes.
        bandwidth: per-rank link bandwidth one way, bytes/s.
        n_ranks: ranks in the ring (>= 1; one rank takes 0 s); ``None`` gives the large-n
            limit 2 x size / bandwidth.
        latency_s: fixed cost of the collective, seconds (default 0: bandwidth-bound).
    """
    b = positive(bandwidth, "bandwidth")
    lat = non_negative(latency_s, "latency_s")
    if n_ranks is None:
        return lat + 2.0 * positive(size_bytes, "size_bytes") / b
    traffic = allreduce_traffic_bytes(size_bytes, n_ranks)
    if n_ranks == 1:
        return 0.0
    return lat + traffic / b


def alltoall_time_s(size_bytes: float, bandwidth: float, n_ranks: int, *, latency_s: float = 0.0) -> float:
    """Uniform all-to-all time, seconds: latency + (n-1)/n x size / bandwidth.

    Every rank sends at once through the switch, so one rank's outgoing traffic over its
    own link sets the time.

    Args:
        size_bytes: bytes one rank holds for every rank together (an even share per rank), bytes.
        bandwidth: one rank's one-way link bandwidth, bytes/s.
        n_ranks: ranks taking part (>= 1; one rank takes 0 s).
        latency_s: fixed cost of the collective, seconds (default 0: bandwidth-bound).
    """
    b = positive(bandwidth, "bandwidth")
    lat = non_negative(latency_s, "latency_s")
    sent = alltoall_send_bytes(size_bytes, n_ranks)
    if n_ranks == 1:
        return 0.0
    return lat + sent / b


def send_time_s(size_bytes: float, bandwidth: float, *, latency_s: float = 0.0) -> float:
    """One point-to-point send (a pipeline stage handing activations on), seconds: latency + size / bandwidth.

    Args:
        size_bytes: bytes sent, bytes.
        bandwidth: the sender's one-way link bandwidth, bytes/s.
        latency_s: fixed cost of the send, seconds (default 0).
    """
    return non_negative(latency_s, "latency_s") + positive(size_bytes, "size_bytes") / positive(bandwidth, "bandwidth")


#: How much of a collective's size each rank's link carries, per collective (nccl-tests' bus-bandwidth factor).
_BUS_SHARE = {"all_reduce": 2.0, "all_gather": 1.0, "reduce_scatter": 1.0}


def busbw_factor(op: str, n_ranks: int) -> float:
    """nccl-tests' bus-bandwidth factor: busbw = algbw x factor, unitless.

    Args:
        op: ``"all_reduce"`` (factor 2 (n-1)/n), ``"all_gather"`` or ``"reduce_scatter"`` ((n-1)/n).
        n_ranks: ranks taking part, >= 1 (one rank moves nothing: factor 0).
    """
    if op not in _BUS_SHARE:
        raise ValueError(f"op must be one of {', '.join(_BUS_SHARE)}, got {op!r}")
    n = positive_int(n_ranks, "n_ranks")
    return _BUS_SHARE[op] * (n - 1) / n


def tp_activation_bytes_per_forward(layers: int, hidden: int, seq_len: int, batch: int = 1,
                                    dtype_bytes: float = 2, allreduces_per_layer: int = 2) -> float:
    """Activation bytes all-reduced by Megatron tensor parallelism in one forward pass, bytes.

    Each of the two all-reduces per layer (after attention, after the MLP) moves a
    [batch, seq, hidden] activation: layers x 2 x batch x seq x hidden x dtype_bytes.
    """
    per = positive_int(batch, "batch") * positive_int(seq_len, "seq_len") * positive_int(hidden, "hidden") * positive(
        dtype_bytes, "dtype_bytes")
    return positive_int(layers, "layers") * positive_int(allreduces_per_layer, "allreduces_per_layer") * per


__all__ = ["allreduce_time_s", "allreduce_traffic_bytes", "alltoall_send_bytes", "alltoall_time_s", "busbw_factor",
           "fsdp_traffic_bytes", "send_time_s", "tp_activation_bytes_per_forward"]
