"""The spec catalog: documented device figures, each with its conditions, source, date and evidence.

The data live in ``xpucalc/catalog/data/devices.json``; this module only reads them. Every
figure comes out as a :class:`~xpucalc.catalog.figure.Figure` (value in SI units, or None when
not published, with unit, text as published, conditions, source, date checked and evidence),
every device as a :class:`DeviceSpec`.

Three conventions of the catalog (schema 2):

* a peak's ``sparse`` is True (2:4 structured sparsity), False (dense) or None when the
  vendor does not say which; a None figure is never used as dense without an explicit
  ``unstated_sparsity=`` argument;
* a memory capacity is stored as the bytes the vendor means: binary (GiB) for HBM, GDDR
  and LPDDR, flagged ``binary: true``; ``runtime_reported`` (when sourced) holds what a
  runtime such as nvidia-smi shows for the same part;
* when two documents disagree on a figure, the figure used for calculations stays in
  place and the other one is an ``extra`` entry with ``conflicts_with`` naming the field
  (see :func:`conflicts`).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .figure import Figure, Source
from .store import Catalog
from ..core.device import Device

#: The device catalog: ``devices.json``, one entry per device key.
CATALOG = Catalog("devices.json", "devices", "device")

PRECISIONS = ("fp64", "fp32", "tf32", "bf16", "fp16", "fp8", "fp4", "int8", "int4")

#: The main figures of a device, beside its peaks and extras.
FIELDS = ("memory", "bandwidth", "tdp")

#: How a figure of unstated sparsity may be read on purpose (see :func:`peak`).
SPARSITY_READINGS = ("dense", "sparse")


@dataclass(frozen=True)
class DeviceSpec:
    """One device of the catalog: what it is, its main figures, its peaks and its extra figures.

    Args:
        key: the catalog key (``"h100-sxm"``).
        name: the product name (``"NVIDIA H100 SXM"``).
        vendor, kind, form_factor: who makes it, what it is (``"GPU"``, ``"NPU"``, ``"virtual"``), its package.
        scope: what its figures count (``"board"``, ``"chip"``, ...).
        notes_ko: a short note for readers, in Korean.
        memory, bandwidth, tdp: capacity (bytes), memory bandwidth (bytes/s), power (W); None when the
            catalog has no such figure.
        peaks: every peak rate (each precision, dense and sparse).
        extra: further documented figures (NVLink bandwidth, SM count, conflicting revisions, ...).
        software: the vendor's software stack a user programs against ("CUDA", "ROCm (HIP)", "MLX, Metal"),
            or None.
        remarks_ko: a one-line remark for the GPU table's note column, in Korean, or None.
    """

    key: str
    name: str
    vendor: str
    kind: str
    form_factor: str
    scope: str
    notes_ko: str
    memory: Figure | None
    bandwidth: Figure | None
    tdp: Figure | None
    peaks: tuple[Figure, ...]
    extra: tuple[Figure, ...]
    software: str | None = None
    remarks_ko: str | None = None

    @classmethod
    def from_dict(cls, key: str, d: dict[str, Any]) -> DeviceSpec:
        """The device ``key`` from its JSON object in ``devices.json``."""
        main = {f: Figure.from_dict(d[f]) if d.get(f) else None for f in FIELDS}
        return cls(key, d["name"], d["vendor"], d["kind"], d["form_factor"], d["scope"], d["notes_ko"],
                   main["memory"], main["bandwidth"], main["tdp"],
                   tuple(Figure.from_dict(p) for p in d["peaks"]), tuple(Figure.from_dict(f) for f in d.get("extra", [])),
                   d.get("software"), d.get("remarks_ko"))


def keys() -> list[str]:
    """The catalog's device keys, in catalog order."""
    return CATALOG.keys()


def entry(key: str) -> DeviceSpec:
    """The device ``key``; raises KeyError naming the known keys."""
    return DeviceSpec.from_dict(key, CATALOG.entry(key))


def source(source_id: str) -> Source:
    """Title, URL and date checked of a source id used by a figure."""
    return CATALOG.source(source_id)


def peaks(key: str) -> list[Figure]:
    """All peak-rate figures of ``key`` (every precision, dense and sparse)."""
    return list(entry(key).peaks)


def _sparsity_label(p: Figure) -> str:
    return "sparse" if p.sparse is True else "dense" if p.sparse is False else "sparsity not stated"


def peak(key: str, precision: str = "bf16", sparse: bool | None = False,
         unstated_sparsity: str | None = None) -> Figure:
    """The peak figure of ``key`` for ``precision`` and sparsity.

    Args:
        key: catalog key.
        precision: one of ``PRECISIONS`` ("fp64" ... "int4").
        sparse: False for the dense figure, True for the 2:4-sparse one, None for a figure
            whose sparsity the vendor does not state (as printed, to display it).
        unstated_sparsity: ``"dense"`` or ``"sparse"``: accept a figure whose sparsity is not
            stated as that reading. Without it such a figure is refused for ``sparse=False``
            or ``sparse=True``, because reading an unknown figure as dense can double a peak.

    When several figures match (e.g. FP16 with FP16 and with FP32 accumulation),
    the one with FP32 accumulation is returned, the safe choice for training.

    Raises:
        KeyError: unknown device key.
        ValueError: no figure for that precision; only a sparse figure exists and a dense
            one was asked for (convert with ``units.sparse_to_dense``); or only a figure of
            unstated sparsity exists and ``unstated_sparsity`` was not given.
    """
    if precision not in PRECISIONS:
        raise ValueError(f"precision {precision!r} is not one of {', '.join(PRECISIONS)}")
    if sparse not in (True, False, None):
        raise ValueError(f"sparse must be True, False or None (sparsity not stated), got {sparse!r}")
    if sparse is not None:
        sparse = bool(sparse)
    if unstated_sparsity is not None and unstated_sparsity not in SPARSITY_READINGS:
        raise ValueError(f"unstated_sparsity must be 'dense', 'sparse' or None, got {unstated_sparsity!r}")
    all_peaks = peaks(key)
    same_prec = [p for p in all_peaks if p.precision == precision]
    match = [p for p in same_prec if p.sparse is sparse]
    unstated = [p for p in same_prec if p.sparse is None]
    if not match and sparse is not None and unstated:
        wanted = "sparse" if sparse else "dense"
        if unstated_sparsity == wanted:
            match = unstated
        else:
            f = unstated[0]
            shown = f.as_published or f"{f.value:g} {f.unit}"
            raise ValueError(
                f"{key}: the {precision} peak ({shown}) does not say whether it is dense or sparse (sparse: null in "
                f"the catalog), so it cannot be used as a {wanted} figure silently. Pass unstated_sparsity="
                f"'{wanted}' to read it as {wanted} on purpose (if it is really a 2:4-sparse figure, the dense peak "
                "is half), or sparse=None to get the figure as printed.")
    if not match:
        if same_prec and sparse is False:
            raise ValueError(
                f"{key}: the catalog has only a sparse {precision} peak; a sparse figure cannot stand in for a "
                "dense one. Ask with sparse=True and convert explicitly with xpucalc.units.sparse_to_dense().")
        have = sorted({f"{p.precision} {_sparsity_label(p)}" for p in all_peaks})
        want = "sparse" if sparse else "dense" if sparse is False else "unstated-sparsity"
        raise ValueError(f"{key}: no {want} {precision} peak in the catalog; available: {', '.join(have) or 'none'}")
    match = sorted(match, key=lambda p: 0 if p.accumulate in ("fp32", "int32", None) else 1)
    return match[0]


def figure(key: str, field: str) -> Figure | None:
    """The ``memory``, ``bandwidth`` or ``tdp`` figure of ``key`` (None if the catalog has none)."""
    if field not in FIELDS:
        raise ValueError(f"field must be 'memory', 'bandwidth' or 'tdp', got {field!r}")
    return getattr(entry(key), field)


def runtime_memory(key: str) -> Figure | None:
    """What a runtime (nvidia-smi, PyTorch) reports as total memory of ``key``, with its source; None if not sourced.

    The figure's ``value`` is in bytes and ``as_published`` is the text the runtime printed
    (e.g. ``"81,559 MiB"``). It is smaller than the catalog capacity because drivers keep
    part of the memory; plan capacity with the smaller number.
    """
    mem = entry(key).memory
    return mem.runtime_reported if mem else None


def conflicts(key: str, field: str) -> list[Figure]:
    """The documented figures that disagree with one figure of ``key``.

    Args:
        key: catalog key.
        field: ``"memory"``, ``"bandwidth"`` or ``"tdp"``, or the label of an ``extra``
            figure (e.g. ``"ICI bandwidth per chip (bidirectional)"``).

    The catalog keeps the value used for calculations in place and records every
    disagreeing document once, as an ``extra`` entry of the same device in
    ``devices.json`` whose ``conflicts_with`` names that field or label. This returns
    those entries in catalog order (an empty list when the sources agree).

    Raises:
        KeyError: unknown device key.
        ValueError: ``field`` is neither a main field nor an extra label of ``key``.
    """
    e = entry(key)
    if field not in FIELDS and field not in {f.label for f in e.extra}:
        raise ValueError(f"field must be 'memory', 'bandwidth', 'tdp' or an extra label of {key}, got {field!r}")
    return [f for f in e.extra if f.conflicts_with == field]


def extra(key: str, label: str) -> Figure:
    """An extra documented figure of ``key`` by its label (NVLink bandwidth, pod total, ...)."""
    e = entry(key)
    for f in e.extra:
        if f.label == label:
            return f
    raise KeyError(f"{key}: no extra figure labelled {label!r}; have: {[f.label for f in e.extra]}")


def get(key: str, precision: str = "bf16", sparse: bool = False, bandwidth: float | None = None,
        unstated_sparsity: str | None = None) -> Device:
    """A :class:`Device` built from the catalog.

    Args:
        key: catalog key (see :func:`keys`).
        precision: precision of the peak (``"bf16"``, ``"fp32"``, ``"int8"``, ...).
        sparse: take the 2:4-sparse peak instead of the dense one.
        bandwidth: override for the memory bandwidth, bytes/s, for devices whose
            bandwidth is not published (the NPU); otherwise the catalog value.
        unstated_sparsity: ``"dense"`` or ``"sparse"`` to accept a peak whose sparsity the
            vendor does not state (see :func:`peak`); the Device then has
            ``sparsity_assumed=True`` so the reading stays visible.

    ``Device.memory`` is the catalog capacity in bytes (binary for HBM/GDDR/LPDDR:
    80 GiB = 85,899,345,920 B for an H100).
    """
    e = entry(key)
    if not isinstance(sparse, bool):
        raise ValueError(f"sparse must be True or False for get(), got {sparse!r}; a figure of unstated sparsity "
                         "needs unstated_sparsity='dense' or 'sparse'")
    p = peak(key, precision, sparse, unstated_sparsity=unstated_sparsity)
    if p.value is None:
        raise ValueError(f"{key}: the {precision} peak is {p.evidence} (no value); pick another precision")
    bw = bandwidth
    if bw is None:
        f = e.bandwidth
        if f is None or f.value is None:
            label = f.evidence if f else "missing"
            raise ValueError(f"{key}: memory bandwidth is {label} in the catalog; pass bandwidth= (bytes/s) "
                             "with a value you can source")
        bw = f.value
    mem = e.memory
    return Device(e.name, p.value, bw, mem.value if mem and mem.value else None,
                  precision, bool(sparse), key, sparsity_assumed=p.sparse is None)
