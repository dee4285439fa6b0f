"""Memory types and their bandwidths, and what a slower memory does to decode speed.

The data live in ``xpucalc/catalog/data/memory_types.json``: one row per memory type with its
example devices, an optional range, the source, the date checked and the evidence label.
Where a row's examples give a transfer rate and a bus width (GDDR, LPDDR, DDR), the
bandwidth is computed here, ``MT/s x 1e6 x bus bits / 8``, and the first example is the
row's representative value; HBM and NVMe rows store a representative value instead
(``bandwidth_from: "stored"``). This module also does the arithmetic of the "decode reads
every weight once per token" bound.
"""
from __future__ import annotations

from typing import Any

from .store import load_json
from .._check import non_negative, positive
from ..render.table import Table
from ..units import fmt_si


def _data() -> dict[str, Any]:
    return load_json("memory_types.json")


def rows() -> list[dict[str, Any]]:
    """All memory-type rows, fastest first as stored (do not mutate)."""
    return list(_data()["rows"])


def keys() -> list[str]:
    """The memory-type keys (``"hbm3"``, ``"ddr5"``, ...)."""
    return [r["key"] for r in rows()]


def row(key: str) -> dict[str, Any]:
    """The row of memory type ``key``; KeyError naming the known keys otherwise."""
    for r in rows():
        if r["key"] == key:
            return r
    raise KeyError(f"unknown memory type key {key!r}; known keys: {', '.join(keys())}")


def source(source_id: str) -> dict[str, Any]:
    """Title, URL and date checked of a source id used in ``memory_types.json``."""
    sources = _data()["sources"]
    if source_id not in sources:
        raise KeyError(f"unknown source id {source_id!r}; known: {', '.join(sources)}")
    return sources[source_id]


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


def examples(key: str) -> list[dict[str, Any]]:
    """The example rows of memory type ``key``, each with ``bandwidth`` (bytes/s) added when rate and width are given."""
    out = []
    for ex in row(key).get("examples", []):
        e = dict(ex)
        if ex.get("transfer_rate_mt_s") is not None and ex.get("bus_width_bits") is not None:
            e["bandwidth"] = transfer_bandwidth(ex["transfer_rate_mt_s"], ex["bus_width_bits"])
        out.append(e)
    return out


def example_devices(key: str) -> list[str]:
    """Catalog device keys given as examples of memory type ``key`` (may be empty)."""
    return [e["device"] for e in row(key).get("examples", []) if e.get("device")]


def bandwidth(key: str) -> float:
    """Representative bandwidth of memory type ``key``, bytes/s.

    Computed from the first example's transfer rate and bus width when the row says
    ``bandwidth_from: "examples"``; otherwise the stored value.
    """
    r = row(key)
    if r.get("bandwidth_from") == "examples":
        computed = [e["bandwidth"] for e in examples(key) if "bandwidth" in e]
        if not computed:
            raise ValueError(f"memory type {key!r} says bandwidth_from='examples' but no example has a rate and a width")
        return computed[0]
    return float(r["bandwidth"])


def bandwidth_range(key: str) -> tuple[float, float]:
    """(low, high) bandwidth of memory type ``key``, bytes/s.

    The stored range when the row has one; else the smallest and largest computed example;
    else (v, v) with the representative value.
    """
    r = row(key)
    if r.get("bandwidth_range"):
        lo, hi = r["bandwidth_range"]
        return float(lo), float(hi)
    computed = [e["bandwidth"] for e in examples(key) if "bandwidth" in e]
    if computed:
        return min(computed), max(computed)
    v = bandwidth(key)
    return v, v


def slowdown(fast_bandwidth: float, slow_bandwidth: float) -> float:
    """How many times slower a bandwidth-bound step gets when its bytes move from the fast memory to the slow one.

    Args:
        fast_bandwidth: bandwidth of the memory the weights should live in (e.g. HBM), bytes/s.
        slow_bandwidth: bandwidth of the memory they were moved to (e.g. DDR5, or the PCIe link), bytes/s.

    Returns:
        ``fast_bandwidth / slow_bandwidth`` (a pure ratio).
    """
    return positive(fast_bandwidth, "fast_bandwidth") / positive(slow_bandwidth, "slow_bandwidth")


def slowdown_range(fast_key: str, slow_key: str) -> tuple[float, float]:
    """(smallest, largest) slowdown between two memory types of the catalog, using their ranges.

    The fast memory's representative value is divided by the slow memory's high and low
    ends, so the answer shows how much of the spread comes from the slow side.
    """
    fast = bandwidth(fast_key)
    lo, hi = bandwidth_range(slow_key)
    return slowdown(fast, hi), slowdown(fast, lo)


def offload_tokens_per_s_bound(model_bytes: float, offloaded_bytes: float, device_bandwidth: float,
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
    t = (m - off) / positive(device_bandwidth, "device_bandwidth") + off / positive(offload_bandwidth,
                                                                                     "offload_bandwidth")
    return 1.0 / t


def table(caption: str = "") -> Table:
    """The memory-type table as stored: representative value, range, use, example devices, evidence, source."""
    from . import devices

    t = Table(["메모리", "대표 대역폭", "범위", "원자료 표기", "주 용도", "예시 장치 (카탈로그)", "근거", "출처 (확인일)"],
              caption=caption)
    for r in rows():
        lo, hi = bandwidth_range(r["key"])
        rng = "—" if lo == hi else f"{fmt_si(lo, 'B/s', 3)} – {fmt_si(hi, 'B/s', 3)}"
        names = ", ".join(devices.entry(k)["name"] for k in example_devices(r["key"])) or "—"
        src = source(r["source"])
        rep = fmt_si(bandwidth(r["key"]), "B/s", 3)
        if r.get("bandwidth_from") == "examples":
            first = next(e for e in examples(r["key"]) if "bandwidth" in e)
            rep += f" (계산: {first['transfer_rate_mt_s']:g} MT/s × {first['bus_width_bits']}비트 / 8)"
        t.add(r["name"], rep, rng, r.get("as_published") or "—",
              r.get("typical_use_ko", "—"), names, r["evidence"], f"{src['title']} ({r['checked']})")
    return t
