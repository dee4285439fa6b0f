"""Memory types and their bandwidths: HBM, GDDR, LPDDR, DDR and NVMe, each with its source.

The data live in ``xpucalc/catalog/data/memory_types.json``: one row per memory type with its
example devices, an optional range, the source, the date checked and the evidence label.
Where a row's examples give a transfer rate and a bus width (GDDR, LPDDR, DDR), the
bandwidth is computed here, ``MT/s x 1e6 x bus bits / 8``, and the first example is the
row's representative value; HBM and NVMe rows store a representative value instead
(``bandwidth_from: "stored"``). What a slower memory does to decode speed is
:mod:`xpucalc.llm.offload`.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from .figure import Source
from .store import Catalog
from .._check import positive

#: The memory-type catalog: ``memory_types.json``, one row per memory type.
CATALOG = Catalog("memory_types.json", "rows", "memory type")


@dataclass(frozen=True)
class Example:
    """A device or configuration given as an example of a memory type.

    Args:
        device: its catalog device key, or None for a configuration without one (DDR5 dual channel).
        label: what it is (``"RTX 4090: GDDR6X 21 Gb/s x 384-bit"``); None for a bare device example.
        transfer_rate_mt_s: data rate per pin, megatransfers per second, when given.
        bus_width_bits: width of the whole interface, bits, when given.
        bandwidth: ``transfer_bandwidth(rate, width)``, bytes/s, when both are given; else None.
        source, checked, evidence, conditions: the provenance of rate and width, when given.
    """

    device: str | None
    label: str | None = None
    transfer_rate_mt_s: float | None = None
    bus_width_bits: int | None = None
    bandwidth: float | None = None
    source: str | None = None
    checked: str | None = None
    evidence: str | None = None
    conditions: str | None = None


@dataclass(frozen=True)
class MemoryType:
    """One row of the memory-type catalog, as stored.

    Args:
        key: the row's key (``"hbm3"``, ``"ddr5"``, ...).
        name: the name shown to readers (``"DDR5 (system RAM)"``).
        stored_bandwidth: the representative bandwidth as stored, bytes/s; None for rows whose value is
            computed from their first example (see :func:`bandwidth`).
        bandwidth_range: (low, high) bytes/s as stored, or None.
        bandwidth_from: ``"stored"`` or ``"examples"``: where the representative value comes from.
        as_published: the figure as the source prints it, or None.
        typical_use_ko: what it is used for, in Korean.
        notes_ko: a note for readers, in Korean.
        source, checked, evidence: the row's provenance (source id, date checked, evidence label).
        examples: the example devices or configurations, as stored (no bandwidth computed).
    """

    key: str
    name: str
    stored_bandwidth: float | None
    bandwidth_range: tuple[float, float] | None
    bandwidth_from: str
    as_published: str | None
    typical_use_ko: str | None
    notes_ko: str | None
    source: str
    checked: str
    evidence: str
    examples: tuple[Example, ...]

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> MemoryType:
        """The row of one JSON object of ``memory_types.json``."""
        rng = d.get("bandwidth_range")
        return cls(d["key"], d["name"], d.get("bandwidth"), (rng[0], rng[1]) if rng else None, d["bandwidth_from"],
                   d.get("as_published"), d.get("typical_use_ko"), d.get("notes_ko"), d["source"], d["checked"],
                   d["evidence"], tuple(Example(**ex) for ex in d.get("examples", [])))


def rows() -> list[MemoryType]:
    """All memory-type rows, fastest first as stored."""
    return [MemoryType.from_dict(r) for r in CATALOG.entries()]


def keys() -> list[str]:
    """The memory-type keys (``"hbm3"``, ``"ddr5"``, ...)."""
    return CATALOG.keys()


def row(key: str) -> MemoryType:
    """The row of memory type ``key``; KeyError naming the known keys otherwise."""
    return MemoryType.from_dict(CATALOG.entry(key))


def source(source_id: str) -> Source:
    """Title, URL and date checked of a source id used in ``memory_types.json``."""
    return CATALOG.source(source_id)


def transfer_bandwidth(transfer_rate_mt_s: float, bus_width_bits: int) -> float:
    """Peak bandwidth of a DRAM interface, bytes/s: ``transfer_rate_mt_s x 1e6 x bus_width_bits / 8``.

    Args:
        transfer_rate_mt_s: data rate per pin, megatransfers per second (LPDDR5X-8533 -> 8533;
            GDDR6X at 21 Gb/s -> 21000).
        bus_width_bits: width of the whole interface, bits (e.g. 128 for two 64-bit DDR channels).

    Example: LPDDR5X-8533 on a 128-bit bus is 8533e6 x 128 / 8 = 136.5e9 B/s.
    """
    rate = positive(transfer_rate_mt_s, "transfer_rate_mt_s")
    if isinstance(bus_width_bits, bool) or not isinstance(bus_width_bits, int) or bus_width_bits < 1:
        raise ValueError(f"bus_width_bits must be a positive integer (bits), got {bus_width_bits!r}")
    return rate * 1e6 * bus_width_bits / 8.0


def examples(key: str) -> list[Example]:
    """The examples of memory type ``key``, each with ``bandwidth`` (bytes/s) computed when rate and width are given."""
    return [replace(ex, bandwidth=transfer_bandwidth(ex.transfer_rate_mt_s, ex.bus_width_bits))
            if ex.transfer_rate_mt_s is not None and ex.bus_width_bits is not None else ex
            for ex in row(key).examples]


def example_devices(key: str) -> list[str]:
    """Catalog device keys given as examples of memory type ``key`` (may be empty)."""
    return [e.device for e in row(key).examples if e.device]


def bandwidth(key: str) -> float:
    """Representative bandwidth of memory type ``key``, bytes/s.

    Computed from the first example's transfer rate and bus width when the row says
    ``bandwidth_from: "examples"``; otherwise the stored value.
    """
    r = row(key)
    if r.bandwidth_from == "examples":
        computed = [e.bandwidth for e in examples(key) if e.bandwidth is not None]
        if not computed:
            raise ValueError(f"memory type {key!r} says bandwidth_from='examples' but no example has a rate and a width")
        return computed[0]
    return float(r.stored_bandwidth)


def bandwidth_range(key: str) -> tuple[float, float]:
    """(low, high) bandwidth of memory type ``key``, bytes/s.

    The stored range when the row has one; else the smallest and largest computed example;
    else (v, v) with the representative value.
    """
    r = row(key)
    if r.bandwidth_range:
        lo, hi = r.bandwidth_range
        return float(lo), float(hi)
    computed = [e.bandwidth for e in examples(key) if e.bandwidth is not None]
    if computed:
        return min(computed), max(computed)
    v = bandwidth(key)
    return v, v
