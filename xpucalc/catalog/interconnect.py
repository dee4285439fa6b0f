"""GPU interconnects: PCIe generations computed from their signalling rate, and the link catalog.

The data live in ``xpucalc/catalog/data/interconnects.json``. PCIe rows give the transfer
rate (GT/s per lane) and the line encoding; every bandwidth of a PCIe link is
computed from those two numbers here, one way or both ways, per lane or per slot.
Link rows (NVLink, InfiniBand, Ethernet) give one-way and both-ways figures
separately, because spec sheets mix the two.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from .figure import Source
from .store import Catalog
from .._check import fraction, positive, positive_int

#: The lane widths a PCIe slot or device can have.
PCIE_WIDTHS = (1, 2, 4, 8, 16)

#: The PCIe generations of ``interconnects.json``, keyed by generation number.
PCIE = Catalog("interconnects.json", "pcie", "PCIe generation", key_field="gen")

#: The other links of ``interconnects.json`` (NVLink, NVSwitch, NVL72, InfiniBand, Ethernet).
LINKS = Catalog("interconnects.json", "links", "link")


@dataclass(frozen=True)
class PcieGeneration:
    """One PCIe generation as stored: its signalling rate and line encoding, from which every bandwidth is computed.

    Args:
        gen: the generation (3, 4, 5, 6).
        gt_per_s: transfer rate per lane, gigatransfers per second.
        encoding: the line encoding (``"128b/130b"``, ``"FLIT 242B/256B"``).
        lane_bytes_per_s_one_way: the per-lane one-way bandwidth as stored, bytes/s (computed), or None.
        nominal_lane_GBps: the rounded per-lane one-way figure people quote, GB/s (1, 2, 4, 8).
        source, checked, evidence: provenance (source id, date checked, evidence label).
    """

    gen: int
    gt_per_s: float
    encoding: str
    lane_bytes_per_s_one_way: float | None
    nominal_lane_GBps: float
    source: str
    checked: str
    evidence: str

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> PcieGeneration:
        """The generation of one JSON object of ``interconnects.json``."""
        return cls(d["gen"], d["gt_per_s"], d["encoding"], d.get("lane_bytes_per_s_one_way"), d["nominal_lane_GBps"],
                   d["source"], d["checked"], d["evidence"])


@dataclass(frozen=True)
class Link:
    """One non-PCIe link as stored, with its one-way and both-ways bandwidths side by side.

    Args:
        key: the link's key (``"nvlink4"``, ``"infiniband-ndr"``).
        name: the name shown to readers.
        bandwidth_one_way: bytes/s in one direction, or None for a topology (NVSwitch).
        bandwidth_both_ways: bytes/s of the two directions added, or None.
        as_published: the figure as the source prints it, or None.
        scope: what the figure counts (``"per GPU"``, ``"per port"``), or None.
        notes_ko: a note for readers, in Korean, or None.
        source, checked, evidence: provenance (source id, date checked, evidence label).
    """

    key: str
    name: str
    bandwidth_one_way: float | None
    bandwidth_both_ways: float | None
    as_published: str | None
    scope: str | None
    notes_ko: str | None
    source: str
    checked: str
    evidence: str

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Link:
        """The link of one JSON object of ``interconnects.json``."""
        return cls(d["key"], d["name"], d.get("bandwidth_one_way"), d.get("bandwidth_both_ways"), d.get("as_published"),
                   d.get("scope"), d.get("notes_ko"), d["source"], d["checked"], d["evidence"])


def source(source_id: str) -> Source:
    """Title, URL and date checked of a source id used in ``interconnects.json``."""
    return LINKS.source(source_id)


# --- PCIe ----------------------------------------------------------------------
def pcie_generations() -> list[int]:
    """The PCIe generations in the catalog, oldest first."""
    return PCIE.keys()


def pcie_row(gen: int) -> PcieGeneration:
    """The catalog row of PCIe generation ``gen`` (3, 4, 5, 6)."""
    return PcieGeneration.from_dict(PCIE.entry(positive_int(gen, "gen")))


def encoding_efficiency(encoding: str) -> float:
    """Payload fraction of a line encoding: ``"128b/130b"`` -> 128/130, ``"FLIT 242B/256B"`` -> 242/256."""
    if not isinstance(encoding, str):
        raise ValueError(f"encoding must be a string such as '128b/130b', got {encoding!r}")
    m = re.search(r"(\d+)\s*[bB]\s*/\s*(\d+)\s*[bB]", encoding)
    if not m:
        raise ValueError(f"encoding {encoding!r} is not of the form '<payload>b/<total>b'")
    payload, total = int(m.group(1)), int(m.group(2))
    if not 0 < payload <= total:
        raise ValueError(f"encoding {encoding!r}: payload must be between 1 and the total")
    return payload / total


def pcie_lane_bandwidth(gen: int) -> float:
    """Usable bandwidth of one PCIe lane in one direction, bytes/s.

    ``GT/s x 1e9 x encoding efficiency / 8``: Gen5 is 32e9 x 128/130 / 8 = 3.94e9 B/s.
    """
    r = pcie_row(gen)
    return float(r.gt_per_s) * 1e9 * encoding_efficiency(r.encoding) / 8.0


def pcie_bandwidth(gen: int, lanes: int = 16, both_ways: bool = False) -> float:
    """Bandwidth of a PCIe link of ``lanes`` lanes, bytes/s.

    Args:
        gen: PCIe generation (3, 4, 5, 6).
        lanes: link width, one of 1, 2, 4, 8, 16.
        both_ways: add the two directions together (the way NVIDIA spec sheets print it);
            a copy in one direction only ever gets the one-way figure.
    """
    n = positive_int(lanes, "lanes")
    if n not in PCIE_WIDTHS:
        raise ValueError(f"lanes must be one of {PCIE_WIDTHS}, got {lanes!r}")
    if not isinstance(both_ways, bool):
        raise ValueError(f"both_ways must be True or False, got {both_ways!r}")
    return pcie_lane_bandwidth(gen) * n * (2 if both_ways else 1)


def pcie_nominal(gen: int, lanes: int = 16, both_ways: bool = False) -> float:
    """The rounded figure people quote (1/2/4/8 GB/s per lane one way) scaled to ``lanes``, bytes/s."""
    n = positive_int(lanes, "lanes")
    return float(pcie_row(gen).nominal_lane_GBps) * 1e9 * n * (2 if both_ways else 1)


def effective_range(bandwidth: float, low: float = 0.70, high: float = 0.85) -> tuple[float, float]:
    """(low, high) bytes/s a transfer can expect when only ``low``..``high`` of the link's rate is usable.

    Args:
        bandwidth: the link's theoretical one-way bandwidth, bytes/s.
        low: smallest usable fraction (0.70 = 70 %).
        high: largest usable fraction, >= ``low``.
    """
    b = positive(bandwidth, "bandwidth")
    lo, hi = fraction(low, "low"), fraction(high, "high")
    if lo > hi:
        raise ValueError(f"low ({low!r}) must not exceed high ({high!r})")
    return b * lo, b * hi


def lanes_needed(widths: list[int] | tuple[int, ...]) -> int:
    """Total CPU lanes used by devices of the given widths (e.g. ``[8, 8, 4, 4]`` -> 24)."""
    total = 0
    for i, w in enumerate(widths):
        n = positive_int(w, f"widths[{i}]")
        if n not in PCIE_WIDTHS:
            raise ValueError(f"widths[{i}] must be one of {PCIE_WIDTHS}, got {w!r}")
        total += n
    return total


# --- other links ---------------------------------------------------------------
def links() -> list[Link]:
    """The non-PCIe links of the catalog (NVLink, NVSwitch, NVL72, InfiniBand, Ethernet)."""
    return [Link.from_dict(d) for d in LINKS.entries()]


def link(key: str) -> Link:
    """The catalog row of link ``key`` (``"nvlink4"``, ``"infiniband-ndr"``, ...); KeyError naming the known keys."""
    return Link.from_dict(LINKS.entry(key))


def one_way(key: str) -> float:
    """One-way bandwidth of link ``key``, bytes/s; ValueError if the row has none (NVSwitch)."""
    r = link(key)
    if r.bandwidth_one_way is None:
        raise ValueError(f"link {key!r} has no bandwidth figure ({r.name} is a topology, not a rate)")
    return float(r.bandwidth_one_way)
