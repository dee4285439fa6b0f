"""Collective-communication volumes and bandwidth-bound times from scalars (ring all-reduce, TP activations).

Sizes are bytes, bandwidths bytes/s one way per rank, times seconds. The serving estimate's
all-reduce with a fixed per-message cost is ``xpucalc.llm.serving.allreduce_s``.
"""
from __future__ import annotations

from .._check import positive, positive_int

def allreduce_traffic_bytes(size_bytes: float, n_ranks: int) -> float:
    """Bytes each rank sends in a ring all-reduce: 2 (n-1)/n x size (reduce-scatter + all-gather)."""
    n = positive_int(n_ranks, "n_ranks")
    if n < 2:
        raise ValueError(f"n_ranks must be >= 2 for an all-reduce, got {n_ranks!r}")
    return 2.0 * (n - 1) / n * positive(size_bytes, "size_bytes")


def allreduce_time_s(size_bytes: float, bandwidth: float, n_ranks: int | None = None) -> float:
    """Bandwidth-bound ring all-reduce time, seconds.

    Args:
        size_bytes: size of the tensor reduced (e.g. the gradients), bytes.
        bandwidth: per-rank link bandwidth one way, bytes/s.
        n_ranks: ranks in the ring; ``None`` gives the large-n limit 2S/B.

    Returns:
        ``2 (n-1)/n * size / bandwidth`` (latency terms ignored).
    """
    b = positive(bandwidth, "bandwidth")
    if n_ranks is None:
        return 2.0 * positive(size_bytes, "size_bytes") / b
    return allreduce_traffic_bytes(size_bytes, n_ranks) / b


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
    """Activation bytes all-reduced by Megatron tensor parallelism in one forward pass.

    Each of the two all-reduces per layer (after attention, after the MLP) moves a
    [batch, seq, hidden] activation: layers x 2 x batch x seq x hidden x dtype_bytes.
    """
    per = positive_int(batch, "batch") * positive_int(seq_len, "seq_len") * positive_int(hidden, "hidden") * positive(
        dtype_bytes, "dtype_bytes")
    return positive_int(layers, "layers") * positive_int(allreduces_per_layer, "allreduces_per_layer") * per


__all__ = ["allreduce_time_s", "busbw_factor", "allreduce_traffic_bytes", "tp_activation_bytes_per_forward"]
