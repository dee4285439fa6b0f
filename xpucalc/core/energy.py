"""Energy and cost per completed job: rates per hour or watts only compare once divided by throughput."""
from __future__ import annotations

from .._check import positive
from ..units import HOUR


def energy_per_request(power_w: float, throughput_rps: float) -> float:
    """Energy per request, joules.

    Args:
        power_w: average power over the measurement window, watts (= J/s), measured
            over the same scope (chip, board, whole system) and the same window as
            the throughput.
        throughput_rps: requests completed correctly per second in that window.
    """
    return positive(power_w, "power_w") / positive(throughput_rps, "throughput_rps")


def cost_per_request(price_per_hour: float, throughput_rps: float) -> float:
    """Cost per request, in the currency of ``price_per_hour``.

    Args:
        price_per_hour: rental price per hour of the configuration measured.
        throughput_rps: requests completed per second under the same quality and latency target.
    """
    return positive(price_per_hour, "price_per_hour") / (positive(throughput_rps, "throughput_rps") * HOUR)
