"""The spec catalog: documented device figures, each with its conditions, source, date and evidence.

The data live in ``xpucalc/data/devices.json``; this module only reads them.
Every figure is a dict with ``value`` (SI units, or None when not published),
``unit``, ``as_published``, ``conditions``, ``source``, ``checked`` and ``evidence``.
"""
from __future__ import annotations

from typing import Any

from ._data import load_json
from .device import Device
from .table import Table
from .units import fmt_bytes, fmt_si

PRECISIONS = ("fp64", "fp32", "tf32", "bf16", "fp16", "fp8", "int8", "int4")


def catalog() -> dict[str, Any]:
    """The whole device catalog as loaded from ``devices.json`` (do not mutate)."""
    return load_json("devices.json")


def keys() -> list[str]:
    """The catalog's device keys, in catalog order."""
    return list(catalog()["devices"])


def entry(key: str) -> dict[str, Any]:
    """The raw catalog entry of ``key``; raises KeyError naming the known keys."""
    devices = catalog()["devices"]
    if key not in devices:
        raise KeyError(f"unknown device key {key!r}; known keys: {', '.join(devices)}")
    return devices[key]


def source(source_id: str) -> dict[str, str]:
    """Title, URL and date checked of a source id used by a figure."""
    sources = catalog()["sources"]
    if source_id not in sources:
        raise KeyError(f"unknown source id {source_id!r}")
    return sources[source_id]


def peaks(key: str) -> list[dict[str, Any]]:
    """All peak-rate figures of ``key`` (every precision, dense and sparse)."""
    return list(entry(key)["peaks"])


def peak(key: str, precision: str = "bf16", sparse: bool = False) -> dict[str, Any]:
    """The peak figure of ``key`` for ``precision`` and sparsity.

    When several figures match (e.g. FP16 with FP16 and with FP32 accumulation),
    the one with FP32 accumulation is returned, the safe choice for training.

    Raises:
        KeyError: unknown device key.
        ValueError: no figure for that precision; or only a sparse figure exists
            and a dense one was asked for (convert with ``units.sparse_to_dense``).
    """
    if precision not in PRECISIONS:
        raise ValueError(f"precision {precision!r} is not one of {', '.join(PRECISIONS)}")
    all_peaks = peaks(key)
    same_prec = [p for p in all_peaks if p["precision"] == precision]
    match = [p for p in same_prec if bool(p["sparse"]) == bool(sparse)]
    if not match:
        if same_prec and not sparse:
            raise ValueError(
                f"{key}: the catalog has only a sparse {precision} peak; a sparse figure cannot stand in for a "
                "dense one. Ask with sparse=True and convert explicitly with xpucalc.units.sparse_to_dense().")
        have = sorted({f"{p['precision']}{' sparse' if p['sparse'] else ''}" for p in all_peaks})
        raise ValueError(f"{key}: no {'sparse' if sparse else 'dense'} {precision} peak in the catalog; "
                         f"available: {', '.join(have) or 'none'}")
    match.sort(key=lambda p: 0 if p.get("accumulate") in ("fp32", "int32", None) else 1)
    return match[0]


def figure(key: str, field: str) -> dict[str, Any] | None:
    """The ``memory``, ``bandwidth`` or ``tdp`` figure of ``key`` (None if the catalog has none)."""
    if field not in ("memory", "bandwidth", "tdp"):
        raise ValueError(f"field must be 'memory', 'bandwidth' or 'tdp', got {field!r}")
    return entry(key).get(field)


def extra(key: str, label: str) -> dict[str, Any]:
    """An extra documented figure of ``key`` by its label (NVLink bandwidth, pod total, ...)."""
    for f in entry(key).get("extra", []):
        if f.get("label") == label:
            return f
    raise KeyError(f"{key}: no extra figure labelled {label!r}; have: {[f.get('label') for f in entry(key).get('extra', [])]}")


def get(key: str, precision: str = "bf16", sparse: bool = False, bandwidth: float | None = None) -> Device:
    """A :class:`Device` built from the catalog.

    Args:
        key: catalog key (see :func:`keys`).
        precision: precision of the peak (``"bf16"``, ``"fp32"``, ``"int8"``, ...).
        sparse: take the 2:4-sparse peak instead of the dense one.
        bandwidth: override for the memory bandwidth, bytes/s, for devices whose
            bandwidth is not published (the NPU); otherwise the catalog value.
    """
    e = entry(key)
    p = peak(key, precision, sparse)
    if p["value"] is None:
        raise ValueError(f"{key}: the {precision} peak is {p['evidence']} (no value); pick another precision")
    bw = bandwidth
    if bw is None:
        f = e.get("bandwidth")
        if f is None or f.get("value") is None:
            label = f["evidence"] if f else "missing"
            raise ValueError(f"{key}: memory bandwidth is {label} in the catalog; pass bandwidth= (bytes/s) "
                             "with a value you can source")
        bw = f["value"]
    mem = e.get("memory")
    return Device(e["name"], p["value"], bw, mem["value"] if mem and mem.get("value") else None,
                  precision, bool(sparse), key)


def _fmt_figure(f: dict[str, Any] | None) -> str:
    if not f:
        return "—"
    if f.get("value") is None:
        return f["evidence"]
    unit = f["unit"]
    if unit == "B":
        return fmt_bytes(f["value"], digits=3)
    if unit in ("B/s", "FLOP/s", "OP/s", "W"):
        return fmt_si(f["value"], unit.replace("FLOP/s", "FLOPS").replace("OP/s", "OPS"), digits=3)
    return f"{f['value']:g} {unit}"


def describe(f: dict[str, Any] | None) -> str:
    """One-line display of a figure: value, as published, evidence (e.g. ``"3.35 TB/s (3.35TB/s, 문서 확인)"``)."""
    if not f:
        return "—"
    if f.get("value") is None:
        return f"{f['evidence']}"
    pub = f.get("as_published")
    return f"{_fmt_figure(f)}" + (f" (표기: {pub}; {f['evidence']})" if pub else f" ({f['evidence']})")


def spec_table(device_keys: list[str], precisions: tuple[str, ...] = ("bf16",), caption: str = "") -> Table:
    """Render catalog figures of ``device_keys`` as a table: one row per peak figure.

    Each row shows precision, dense/sparse, accumulate type, scope, the value as
    published, memory, bandwidth, evidence, source and date. Nothing is retyped.
    """
    t = Table(["장치", "정밀도", "dense/sparse", "누산", "범위", "피크", "메모리", "대역폭", "근거", "출처 (확인일)"],
              caption=caption)
    for key in device_keys:
        e = entry(key)
        rows = [p for p in e["peaks"] if p["precision"] in precisions]
        if not rows:
            rows = [None]
        for p in rows:
            if p is None:
                t.add(e["name"], "—", "—", "—", e.get("scope", "—"), "—", describe(e.get("memory")),
                      describe(e.get("bandwidth")), "—", "—")
                continue
            src = source(p["source"]) if p.get("source") in catalog()["sources"] else {"title": p.get("source", "—")}
            t.add(e["name"], p["precision"].upper(), "sparse (2:4)" if p["sparse"] else "dense",
                  (p.get("accumulate") or "—").upper(), p.get("scope", "—"),
                  _fmt_figure(p),
                  describe(e.get("memory")), describe(e.get("bandwidth")), p["evidence"],
                  f"{src.get('title', '—')} ({p.get('checked', '—')})")
    return t
