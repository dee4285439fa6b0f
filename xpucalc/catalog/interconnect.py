"""GPU interconnects: PCIe generations computed from their signalling rate, and the link catalog.

The data live in ``xpucalc/catalog/data/interconnects.json``. PCIe rows give the transfer
rate (GT/s per lane) and the line encoding; every bandwidth of a PCIe link is
computed from those two numbers here, one way or both ways, per lane or per slot.
Link rows (NVLink, InfiniBand, Ethernet) give one-way and both-ways figures
separately, because spec sheets mix the two.
"""
from __future__ import annotations

import re
from typing import Any

from .store import load_json
from .._check import fraction, positive, positive_int
from ..render.table import Table
from ..units import fmt_si

#: The lane widths a PCIe slot or device can have.
PCIE_WIDTHS = (1, 2, 4, 8, 16)


def _data() -> dict[str, Any]:
    return load_json("interconnects.json")


def source(source_id: str) -> dict[str, Any]:
    """Title, URL and date checked of a source id used in ``interconnects.json``."""
    sources = _data()["sources"]
    if source_id not in sources:
        raise KeyError(f"unknown source id {source_id!r}; known: {', '.join(sources)}")
    return sources[source_id]


# --- PCIe ----------------------------------------------------------------------
def pcie_generations() -> list[int]:
    """The PCIe generations in the catalog, oldest first."""
    return [r["gen"] for r in _data()["pcie"]]


def pcie_row(gen: int) -> dict[str, Any]:
    """The catalog row of PCIe generation ``gen`` (3, 4, 5, 6)."""
    g = positive_int(gen, "gen")
    for r in _data()["pcie"]:
        if r["gen"] == g:
            return r
    raise KeyError(f"PCIe generation {gen!r} is not in the catalog; known: {pcie_generations()}")


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
    return float(r["gt_per_s"]) * 1e9 * encoding_efficiency(r["encoding"]) / 8.0


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
    return float(pcie_row(gen)["nominal_lane_GBps"]) * 1e9 * n * (2 if both_ways else 1)


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


def pcie_table(caption: str = "") -> Table:
    """PCIe generations: GT/s, encoding, per lane and x16, one way and both ways, exact beside nominal."""
    t = Table(["세대", "전송률 (GT/s, 레인당)", "인코딩", "레인당 한 방향 (계산)", "x16 한 방향 (계산)",
               "x16 양방향 합 (계산)", "흔히 쓰는 반올림값 (레인당 / x16 한 방향 / x16 양방향)", "근거"],
              caption=caption)
    for g in pcie_generations():
        r = pcie_row(g)
        t.add(f"Gen{g}", f"{r['gt_per_s']:g}", r["encoding"], fmt_si(pcie_lane_bandwidth(g), "B/s", 3),
              fmt_si(pcie_bandwidth(g, 16), "B/s", 3), fmt_si(pcie_bandwidth(g, 16, both_ways=True), "B/s", 3),
              " / ".join(fmt_si(pcie_nominal(g, n, b), "B/s", 0) for n, b in ((1, False), (16, False), (16, True))),
              r["evidence"])
    return t


# --- other links ---------------------------------------------------------------
def links() -> list[dict[str, Any]]:
    """The non-PCIe links of the catalog (NVLink, NVSwitch, NVL72, InfiniBand, Ethernet)."""
    return list(_data()["links"])


def link(key: str) -> dict[str, Any]:
    """The catalog row of link ``key`` (``"nvlink4"``, ``"infiniband-ndr"``, ...)."""
    for r in links():
        if r["key"] == key:
            return r
    raise KeyError(f"unknown link key {key!r}; known: {', '.join(r['key'] for r in links())}")


def one_way(key: str) -> float:
    """One-way bandwidth of link ``key``, bytes/s; ValueError if the row has none (NVSwitch)."""
    r = link(key)
    if r.get("bandwidth_one_way") is None:
        raise ValueError(f"link {key!r} has no bandwidth figure ({r['name']} is a topology, not a rate)")
    return float(r["bandwidth_one_way"])


def link_table(caption: str = "", include_pcie: tuple[int, ...] = (5, 4)) -> Table:
    """All links with one-way and both-ways bandwidth side by side; PCIe x16 rows computed."""
    t = Table(["연결", "범위", "한 방향", "양방향 합", "원자료·사양 표기", "비고", "근거", "출처 (확인일)"],
              caption=caption)
    pcie_rows = []
    for g in include_pcie:
        r = pcie_row(g)
        pcie_rows.append([f"PCIe Gen{g} x16", "링크당 (CPU↔장치, NVLink 없는 GPU↔GPU)",
                          fmt_si(pcie_bandwidth(g, 16), "B/s", 3), fmt_si(pcie_bandwidth(g, 16, True), "B/s", 3),
                          f"{pcie_nominal(g, 16) / 1e9:g} GB/s (한 방향, 반올림)",
                          f"{r['gt_per_s']:g} GT/s × 16레인, {r['encoding']} 인코딩에서 계산",
                          r["evidence"], f"{source(r['source'])['title']} ({r['checked']})"])
    order = ["nvlink5", "nvlink4", "nvswitch", "nvl72"]
    first = [link(k) for k in order if any(r["key"] == k for r in links())]
    rest = [r for r in links() if r["key"] not in order]

    def add_link(r: dict[str, Any]) -> None:
        ow, bw = r.get("bandwidth_one_way"), r.get("bandwidth_both_ways")
        t.add(r["name"], r.get("scope", "—"), fmt_si(ow, "B/s", 3) if ow else "— (연결 구조)",
              fmt_si(bw, "B/s", 3) if bw else "—", r.get("as_published") or "—", r.get("notes_ko", ""),
              r["evidence"], f"{source(r['source'])['title']} ({r['checked']})")

    for r in first:
        add_link(r)
    for row_ in pcie_rows:
        t.add(*row_)
    for r in rest:
        add_link(r)
    return t
