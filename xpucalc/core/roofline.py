"""The roofline model: time and attainable rate of a workload on a device."""
from __future__ import annotations

from dataclasses import dataclass

from .._check import positive
from .device import Device
from .workload import Workload

COMPUTE = "compute"
MEMORY = "memory"


@dataclass(frozen=True)
class RooflineResult:
    """What the roofline says about one workload on one device (all SI units).

    Attributes:
        compute_time: flops / peak_flops, seconds.
        memory_time: bytes / bandwidth, seconds.
        time: ideal time max(compute_time, memory_time), seconds (compute and
            memory traffic fully overlapped; no launch, compile or host transfer).
        attainable: roof min(peak_flops, bandwidth * intensity), FLOP/s.
        bound: ``"compute"`` or ``"memory"``, whichever limits the time.
    """

    workload: Workload
    device: Device
    compute_time: float
    memory_time: float

    @property
    def time(self) -> float:
        return max(self.compute_time, self.memory_time)

    @property
    def attainable(self) -> float:
        return attainable(self.workload.intensity, self.device)

    @property
    def bound(self) -> str:
        return COMPUTE if self.compute_time >= self.memory_time else MEMORY

    @property
    def bound_ko(self) -> str:
        """The limiting resource in Korean: ``"연산"`` or ``"대역폭"``."""
        return "연산" if self.bound == COMPUTE else "대역폭"


def _check_sparse(workload: Workload, device: Device) -> None:
    if device.sparse and not workload.sparse:
        raise ValueError(
            f"device {device.name!r} carries a sparse (2:4) peak_flops but workload {workload.name!r} is dense; "
            "use device.dense() (halves the peak) or mark the workload sparse=True if it really is 2:4 sparse")


def _dense_device(device: object, name: str) -> Device:
    """``device`` if it is a Device with a dense peak; a sparse peak is refused as :func:`roofline` refuses it."""
    if not isinstance(device, Device):
        raise ValueError(f"{name} must be a Device, got {type(device).__name__}")
    if device.sparse:
        raise ValueError(
            f"{name} {device.name!r} carries a sparse (2:4) peak_flops, which no dense workload reaches; "
            f"pass {name}.dense() (halves the peak), or use roofline() with a workload marked sparse=True")
    return device


def attainable(intensity: float, device: Device) -> float:
    """Roofline ceiling min(peak_flops, bandwidth * intensity), FLOP/s, for ``intensity`` in FLOP/byte.

    Raises ValueError for a sparse peak (convert with ``device.dense()``), as :func:`roofline` does
    for a dense workload.
    """
    i = positive(intensity, "intensity")
    _dense_device(device, "device")
    return min(device.peak_flops, device.bandwidth * i)


def roofline(workload: Workload, device: Device) -> RooflineResult:
    """Ideal time, attainable rate and limiting resource of ``workload`` on ``device``.

    Raises ValueError when a sparse peak would be applied to a dense workload.
    """
    if not isinstance(workload, Workload):
        raise ValueError(f"workload must be a Workload, got {type(workload).__name__}")
    if not isinstance(device, Device):
        raise ValueError(f"device must be a Device, got {type(device).__name__}")
    _check_sparse(workload, device)
    return RooflineResult(workload, device, workload.flops / device.peak_flops, workload.bytes / device.bandwidth)


def ridge_point(device: Device) -> float:
    """Intensity where ``device``'s two roofs meet, FLOP/byte (= peak_flops / bandwidth).

    Raises ValueError for a sparse peak (convert with ``device.dense()``).
    """
    return _dense_device(device, "device").ridge_point


def crossover(device_a: Device, device_b: Device) -> float | None:
    """Intensity (FLOP/byte) where the roofs of two devices cross, or None if they never do.

    Roofs cross only when one device has the higher peak and the other the higher
    bandwidth. Then the flat roof of the lower-peak device meets the sloped roof
    of the lower-bandwidth device, at ``min(peak) / min(bandwidth)``. Below that
    intensity the higher-bandwidth device has the higher roof, above it the
    higher-peak device does. If one device is at least as good on both numbers,
    its roof is never below the other's and the result is None. A sparse peak is refused
    (convert with ``device.dense()``).
    """
    a, b = _dense_device(device_a, "device_a"), _dense_device(device_b, "device_b")
    if (a.peak_flops - b.peak_flops) * (a.bandwidth - b.bandwidth) >= 0:
        return None
    return min(a.peak_flops, b.peak_flops) / min(a.bandwidth, b.bandwidth)
