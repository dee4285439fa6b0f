"""What a slower memory does to decode: the slowdown of a bandwidth-bound step, and the offload decode bound.

Decode reads every weight once per token, so its time is bytes / bandwidth. Weights moved
from the accelerator's memory (HBM, GDDR) to a slower one (host DDR5, or the PCIe link in
front of it) are read at the slower rate every token. Bandwidths of memory types come from
:mod:`xpucalc.catalog.memory`; SI units throughout (bytes, bytes/s, tokens/s).
"""
from __future__ import annotations

from .._check import device_figure, non_negative, positive
from ..catalog import memory


def slowdown(fast_bandwidth: float, slow_bandwidth: float) -> float:
    """How many times slower a bandwidth-bound step gets when its bytes move from the fast memory to the slow one.

    Args:
        fast_bandwidth: bandwidth of the memory the weights should live in (e.g. HBM), bytes/s.
        slow_bandwidth: bandwidth of the memory they were moved to (e.g. DDR5, or the PCIe link), bytes/s.

    Returns:
        ``fast_bandwidth / slow_bandwidth`` (a pure ratio).
    """
    return device_figure(fast_bandwidth, "fast_bandwidth", "bytes/s") / device_figure(slow_bandwidth, "slow_bandwidth", "bytes/s")


def slowdown_range(fast_key: str, slow_key: str) -> tuple[float, float]:
    """(smallest, largest) slowdown between two memory types of the catalog, using their ranges.

    Args:
        fast_key: memory-type key of the fast memory (``"hbm3"``); its representative bandwidth is used.
        slow_key: memory-type key of the slow memory (``"ddr5"``); its (low, high) range is used.

    The fast memory's representative value is divided by the slow memory's high and low
    ends, so the answer shows how much of the spread comes from the slow side.
    """
    fast = memory.bandwidth(fast_key)
    lo, hi = memory.bandwidth_range(slow_key)
    return slowdown(fast, hi), slowdown(fast, lo)


def tokens_per_s_bound(model_bytes: float, offloaded_bytes: float, device_bandwidth: float,
                       offload_bandwidth: float) -> float:
    """Decode bound when part of the weights is read from a slower memory every token, tokens/s.

    The time per token is the sum of the two reads, ``(model - off)/device_bw + off/offload_bw``;
    with nothing offloaded this is ``device_bw / model``.

    Args:
        model_bytes: bytes of weights read per token, bytes.
        offloaded_bytes: of those, the bytes kept in the slower memory, bytes (0 <= off <= model).
        device_bandwidth: bandwidth of the accelerator's own memory, bytes/s.
        offload_bandwidth: bandwidth at which offloaded bytes reach the accelerator, bytes/s
            (the slower of host RAM and the host link).
    """
    m = positive(model_bytes, "model_bytes")
    off = non_negative(offloaded_bytes, "offloaded_bytes")
    if off > m:
        raise ValueError(f"offloaded_bytes ({offloaded_bytes!r}) cannot exceed model_bytes ({model_bytes!r})")
    t = (m - off) / device_figure(device_bandwidth, "device_bandwidth", "bytes/s") + off / positive(offload_bandwidth,
                                                                                     "offload_bandwidth")
    return 1.0 / t


__all__ = ["slowdown", "slowdown_range", "tokens_per_s_bound"]
