"""A device as the roofline sees it: one peak rate, one memory bandwidth, a capacity."""
from __future__ import annotations

from dataclasses import dataclass

from .._check import check_bool, positive


@dataclass(frozen=True)
class Device:
    """An accelerator reduced to the numbers a roofline needs.

    Args:
        name: display name, e.g. ``"NVIDIA H100 SXM"``.
        peak_flops: peak rate for the chosen precision, FLOP/s (or OP/s for integers).
        bandwidth: main-memory bandwidth, bytes/s.
        memory: main-memory capacity, bytes (``None`` if unknown).
        precision: the precision ``peak_flops`` belongs to (``"bf16"``, ``"int8"``, ...).
        sparse: True if ``peak_flops`` assumes 2:4 structured sparsity. A sparse peak
            cannot be used for a dense workload; convert with :meth:`dense` first.
        key: catalog key when the device came from the spec catalog.
        sparsity_assumed: True when the vendor does not state whether the peak is dense or
            sparse and the caller chose the reading (``devices.get(..., unstated_sparsity=)``).
    """

    name: str
    peak_flops: float
    bandwidth: float
    memory: float | None = None
    precision: str | None = None
    sparse: bool = False
    key: str | None = None
    sparsity_assumed: bool = False

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name:
            raise ValueError(f"name must be a non-empty string, got {self.name!r}")
        object.__setattr__(self, "peak_flops", positive(self.peak_flops, "peak_flops"))
        object.__setattr__(self, "bandwidth", positive(self.bandwidth, "bandwidth"))
        if self.memory is not None:
            object.__setattr__(self, "memory", positive(self.memory, "memory"))
        check_bool(self.sparse, "sparse")
        check_bool(self.sparsity_assumed, "sparsity_assumed")

    @property
    def ridge_point(self) -> float:
        """Intensity where the memory roof meets the compute roof, FLOP/byte (= peak_flops / bandwidth)."""
        return self.peak_flops / self.bandwidth

    def dense(self, ratio: float = 2.0) -> "Device":
        """The same device with a sparse peak converted to its dense equivalent (peak / ``ratio``).

        Raises ValueError if the peak is already dense.
        """
        if not self.sparse:
            raise ValueError(f"{self.name}: peak_flops is already dense; dense() converts sparse figures only")
        return Device(self.name, self.peak_flops / positive(ratio, "ratio"), self.bandwidth, self.memory,
                      self.precision, False, self.key, self.sparsity_assumed)

    def fits(self, resident_bytes: float) -> bool:
        """True if ``resident_bytes`` (bytes held at once) fit in ``memory``.

        Raises ValueError if the capacity is unknown.
        """
        need = positive(resident_bytes, "resident_bytes")
        if self.memory is None:
            raise ValueError(f"{self.name}: memory capacity is unknown; pass memory= when creating the Device")
        return need <= self.memory
