"""The catalog's figures as text and tables: spec sheets, memory types, PCIe generations and links.

Every cell is read from :mod:`xpucalc.catalog` (devices, memory, interconnect) or computed there;
this module only lays the values out, with their evidence labels and sources. Nothing is retyped.
"""
from __future__ import annotations

from ..catalog import devices, interconnect, memory
from ..catalog.figure import Figure
from ..catalog.interconnect import Link
from ..units import fmt_bytes, fmt_si
from .table import Table

#: How a peak's ``sparse`` value is shown in tables.
SPARSITY_KO = {True: "sparse (2:4)", False: "dense", None: "미표기 (dense/sparse 불명)"}


def figure_text(f: Figure | None) -> str:
    """A figure's value with its unit, 3 decimals (``"989.4 TFLOP/s"``, ``"80 GiB"``); its evidence when it has no value.

    Bytes are binary (GiB) when the figure says so; FLOP/s keeps the course's one spelling (TFLOP/s),
    integer rates read as vendors print them (TOPS); other units are printed as they are.
    """
    if f is None:
        return "—"
    if f.value is None:
        return f.evidence
    if f.unit == "B":
        return fmt_bytes(f.value, binary=f.binary, digits=3)
    if f.unit in ("B/s", "FLOP/s", "OP/s", "W"):
        return fmt_si(f.value, f.unit if f.unit == "FLOP/s" else f.unit.replace("OP/s", "OPS"), digits=3)
    return f"{f.value:g} {f.unit}"


def describe(f: Figure | None) -> str:
    """One-line display of a figure: value, as published, evidence (``"3.35 TB/s (표기: 3.35TB/s; 문서 확인)"``)."""
    if f is None:
        return "—"
    if f.value is None:
        return f.evidence
    return figure_text(f) + (f" (표기: {f.as_published}; {f.evidence})" if f.as_published else f" ({f.evidence})")


def spec_table(device_keys: list[str], precisions: tuple[str, ...] = ("bf16",), caption: str = "") -> Table:
    """Catalog figures of ``device_keys`` as a table: one row per peak figure of ``precisions``.

    Each row shows precision, dense/sparse, accumulate type, scope, the peak, memory,
    bandwidth, evidence, source and date. A device without a peak of ``precisions`` gets one
    row of dashes with its memory and bandwidth.
    """
    t = Table(["장치", "정밀도", "dense/sparse", "누산", "범위", "최대 처리율", "메모리", "대역폭", "근거", "출처 (확인일)"],
              caption=caption)
    sources = devices.CATALOG.sources()
    for key in device_keys:
        e = devices.entry(key)
        mem, bw = describe(e.memory), describe(e.bandwidth)
        rows = [p for p in e.peaks if p.precision in precisions]
        if not rows:
            t.add(e.name, "—", "—", "—", e.scope, "—", mem, bw, "—", "—")
        for p in rows:
            title = sources[p.source].title if p.source in sources else p.source
            t.add(e.name, p.precision.upper(), SPARSITY_KO[p.sparse], (p.accumulate or "—").upper(), p.scope or "—",
                  figure_text(p), mem, bw, p.evidence, f"{title} ({p.checked})")
    return t


def memory_table(caption: str = "") -> Table:
    """The memory-type table as stored: representative value, range, use, example devices, evidence, source."""
    t = Table(["메모리", "대표 대역폭", "범위", "원자료 표기", "주 용도", "예시 장치", "근거", "출처 (확인일)"],
              caption=caption)
    for r in memory.rows():
        lo, hi = memory.bandwidth_range(r.key)
        rng = "—" if lo == hi else f"{fmt_si(lo, 'B/s', 3)} – {fmt_si(hi, 'B/s', 3)}"
        # catalog devices by name; a product outside the catalog ("name: DRAM x width" labels) with its computed value
        outside = [f"{e.label.split(':')[0]} ({fmt_si(e.bandwidth, 'B/s', 3)}, 카탈로그 밖)"
                   for e in memory.examples(r.key) if e.device is None and ":" in (e.label or "") and e.bandwidth is not None]
        names = ", ".join([devices.entry(k).name for k in memory.example_devices(r.key)] + outside) or "—"
        rep = fmt_si(memory.bandwidth(r.key), "B/s", 3)
        if r.bandwidth_from == "examples":
            first = next(e for e in memory.examples(r.key) if e.bandwidth is not None)
            rep += f" (계산: {first.transfer_rate_mt_s:g} MT/s × {first.bus_width_bits}비트 / 8)"
        t.add(r.name, rep, rng, r.as_published or "—", r.typical_use_ko or "—", names, r.evidence,
              f"{memory.source(r.source).title} ({r.checked})")
    return t


def pcie_table(caption: str = "") -> Table:
    """PCIe generations: GT/s, encoding, per lane and x16, one way and both ways, exact beside nominal."""
    ic = interconnect
    t = Table(["세대", "전송률 (GT/s, 레인당)", "인코딩", "레인당 한 방향 (계산)", "x16 한 방향 (계산)",
               "x16 양방향 합 (계산)", "흔히 쓰는 반올림값 (레인당 / x16 한 방향 / x16 양방향)", "근거"],
              caption=caption)
    for g in ic.pcie_generations():
        r = ic.pcie_row(g)
        t.add(f"Gen{g}", f"{r.gt_per_s:g}", r.encoding, fmt_si(ic.pcie_lane_bandwidth(g), "B/s", 3),
              fmt_si(ic.pcie_bandwidth(g, 16), "B/s", 3), fmt_si(ic.pcie_bandwidth(g, 16, both_ways=True), "B/s", 3),
              " / ".join(fmt_si(ic.pcie_nominal(g, n, b), "B/s", 0) for n, b in ((1, False), (16, False), (16, True))),
              r.evidence)
    return t


def link_table(caption: str = "", include_pcie: tuple[int, ...] = (5, 4)) -> Table:
    """All links with one-way and both-ways bandwidth side by side; PCIe x16 rows computed.

    NVLink 5, NVLink 4, NVSwitch and NVL72 come first (those the catalog has), then the PCIe
    generations of ``include_pcie``, then the other links in catalog order.
    """
    ic = interconnect
    t = Table(["연결", "범위", "한 방향", "양방향 합", "원자료·사양 표기", "비고", "근거", "출처 (확인일)"],
              caption=caption)

    def add_link(r: Link) -> None:
        ow, bw = r.bandwidth_one_way, r.bandwidth_both_ways
        t.add(r.name, r.scope or "—", fmt_si(ow, "B/s", 3) if ow else "— (연결 구조)",
              fmt_si(bw, "B/s", 3) if bw else "—", r.as_published or "—", r.notes_ko or "",
              r.evidence, f"{ic.source(r.source).title} ({r.checked})")

    order = ["nvlink5", "nvlink4", "nvswitch", "nvl72"]
    links = ic.links()
    for key in order:
        for r in links:
            if r.key == key:
                add_link(r)
    for g in include_pcie:
        r = ic.pcie_row(g)
        t.add(f"PCIe Gen{g} x16", "링크당 (CPU↔장치, NVLink 없는 GPU↔GPU)",
              fmt_si(ic.pcie_bandwidth(g, 16), "B/s", 3), fmt_si(ic.pcie_bandwidth(g, 16, True), "B/s", 3),
              f"{ic.pcie_nominal(g, 16) / 1e9:g} GB/s (한 방향, 반올림)",
              f"{r.gt_per_s:g} GT/s × 16레인, {r.encoding} 인코딩에서 계산",
              r.evidence, f"{ic.source(r.source).title} ({r.checked})")
    for r in links:
        if r.key not in order:
            add_link(r)
    return t
