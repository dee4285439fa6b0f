"""Reading spec sheets with their conditions: the small computations of the Week 5 "spec sheets" pages.

Every function takes catalog keys or SI values (FLOP/s, OP/s, bytes, bytes/s) and
returns SI values. Nothing here invents a figure: catalog values come from
``xpucalc.devices`` as typed figures, and every conversion is an explicit, named step.
"""
from __future__ import annotations

from dataclasses import dataclass

from . import devices
from .._check import positive
from ..units import GB, GiB


@dataclass(frozen=True)
class Step:
    """One step of a conversion chain: a short Korean description and the value after it (SI units)."""

    label: str
    value: float


def advertised_to_dense(advertised: float, sparse_ratio: float = 2.0, precision_ratio: float = 2.0) -> list[Step]:
    """From an advertised sparse low-precision peak to a dense peak of a wider type, step by step.

    Args:
        advertised: the advertised peak, OP/s (e.g. INT8 with 2:4 sparsity).
        sparse_ratio: how much the structured-sparsity mode multiplies the dense rate (2 for 2:4), unitless.
        precision_ratio: how much faster the advertised type runs than the target type on the same
            unit (INT8 vs FP16 is typically 2, but read it from the sheet), unitless.

    Returns:
        three steps: advertised, dense in the advertised type, dense in the target type (OP/s or FLOP/s).
    """
    a = positive(advertised, "advertised")
    s = positive(sparse_ratio, "sparse_ratio")
    p = positive(precision_ratio, "precision_ratio")
    return [Step("광고 수치 (희소, 낮은 정밀도)", a),
            Step("희소성 제거 → 같은 정밀도의 dense", a / s),
            Step("정밀도 환산 → 목표 정밀도의 dense", a / s / p)]


def peak_ratio(key: str, numerator: str, denominator: str, sparse: bool = False) -> float:
    """Ratio of two peaks of one catalog device, e.g. INT8 dense / FP16 dense (unitless).

    Args:
        key: catalog key.
        numerator, denominator: precisions (``"int8"``, ``"fp16"``, ``"bf16"``, ...).
        sparse: compare the sparse figures instead of the dense ones.

    Raises:
        KeyError / ValueError from :func:`xpucalc.catalog.devices.peak` when a figure is missing.
    """
    num = devices.peak(key, numerator, sparse)
    den = devices.peak(key, denominator, sparse)
    for name, f in (("numerator", num), ("denominator", den)):
        if f.value is None:
            raise ValueError(f"{key}: the {name} peak is {f.evidence}; no ratio can be formed")
    return num.value / den.value


def platform_parts(key: str, part_labels: list[str], platform_precision: str = "int8") -> tuple[float, float]:
    """Sum of the per-unit peaks that make up a platform figure, and the platform figure itself (OP/s).

    Args:
        key: catalog key whose peaks include one with scope ``"platform"``.
        part_labels: labels of the ``extra`` figures that are parts of the platform total; the
            device's own (non-platform) peak of ``platform_precision`` is added to them.
        platform_precision: precision of the platform figure.

    Returns:
        (sum of the parts, published platform total), both OP/s.
    """
    if not part_labels:
        raise ValueError("part_labels must name at least one extra figure")
    peaks = [p for p in devices.peaks(key) if p.precision == platform_precision]
    platform = [p for p in peaks if p.scope == "platform"]
    own = [p for p in peaks if p.scope != "platform"]
    if not platform or not own:
        raise ValueError(f"{key}: needs one platform-scope and one own {platform_precision} peak in the catalog")
    total = own[0].value + sum(devices.extra(key, label).value for label in part_labels)
    return total, platform[0].value


def per_chip_from_pod(pod_total: float, chips: int) -> float:
    """A pod-scope figure divided over its chips (same unit as ``pod_total``)."""
    if isinstance(chips, bool) or not isinstance(chips, int) or chips < 1:
        raise ValueError(f"chips must be a positive integer, got {chips!r}")
    return positive(pod_total, "pod_total") / chips


def gib_read_as_gb(value_gib: float) -> tuple[float, float]:
    """What a figure in GiB (or GiB/s) is in GB, and how far off reading it as GB would be.

    Args:
        value_gib: the figure in GiB or GiB/s.

    Returns:
        (value in GB or GB/s, relative amount by which the true value exceeds the mistaken
        reading: GiB/GB - 1 ≈ 0.0737).
    """
    v = positive(value_gib, "value_gib")
    gb = v * GiB / GB
    return gb, gb / v - 1


def transfer_time(n_bytes: float, bandwidth: float, both_directions: bool = False) -> float:
    """Seconds to move ``n_bytes`` one way over a link quoted at ``bandwidth`` bytes/s.

    Args:
        n_bytes: bytes to move.
        bandwidth: the quoted bandwidth, bytes/s.
        both_directions: True when the quoted figure adds both directions together
            (NVLink 900 GB/s, PCIe Gen5 x16 128 GB/s); one direction then gets half.
    """
    n = positive(n_bytes, "n_bytes")
    bw = positive(bandwidth, "bandwidth")
    return n / (bw / 2 if both_directions else bw)
