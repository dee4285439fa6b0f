"""The spec catalog: documented device figures, each with its conditions, source, date and evidence.

The data live in ``xpucalc/catalog/data/devices.json``; this module only reads them.
Every figure is a dict with ``value`` (SI units, or None when not published),
``unit``, ``as_published``, ``conditions``, ``source``, ``checked`` and ``evidence``.

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

from typing import Any

from .store import load_json
from ..core.device import Device
from ..render.table import Table
from ..units import fmt_bytes, fmt_si

PRECISIONS = ("fp64", "fp32", "tf32", "bf16", "fp16", "fp8", "int8", "int4")

#: How a peak's ``sparse`` value is shown in tables.
SPARSITY_KO = {True: "sparse (2:4)", False: "dense", None: "미표기 (dense/sparse 불명)"}


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


SPARSITY_READINGS = ("dense", "sparse")


def _sparsity_label(p: dict[str, Any]) -> str:
    return "sparse" if p["sparse"] is True else "dense" if p["sparse"] is False else "sparsity not stated"


def peak(key: str, precision: str = "bf16", sparse: bool | None = False,
         unstated_sparsity: str | None = None) -> dict[str, Any]:
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
    same_prec = [p for p in all_peaks if p["precision"] == precision]
    match = [p for p in same_prec if p["sparse"] is sparse]
    unstated = [p for p in same_prec if p["sparse"] is None]
    if not match and sparse is not None and unstated:
        wanted = "sparse" if sparse else "dense"
        if unstated_sparsity == wanted:
            match = unstated
        else:
            f = unstated[0]
            shown = f.get("as_published") or f"{f['value']:g} {f['unit']}"
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
        have = sorted({f"{p['precision']} {_sparsity_label(p)}" for p in all_peaks})
        want = "sparse" if sparse else "dense" if sparse is False else "unstated-sparsity"
        raise ValueError(f"{key}: no {want} {precision} peak in the catalog; available: {', '.join(have) or 'none'}")
    match = sorted(match, key=lambda p: 0 if p.get("accumulate") in ("fp32", "int32", None) else 1)
    return match[0]


def figure(key: str, field: str) -> dict[str, Any] | None:
    """The ``memory``, ``bandwidth`` or ``tdp`` figure of ``key`` (None if the catalog has none)."""
    if field not in ("memory", "bandwidth", "tdp"):
        raise ValueError(f"field must be 'memory', 'bandwidth' or 'tdp', got {field!r}")
    return entry(key).get(field)


def runtime_memory(key: str) -> dict[str, Any] | None:
    """What a runtime (nvidia-smi, PyTorch) reports as total memory of ``key``, with its source; None if not sourced.

    The dict has ``value`` (bytes), ``as_reported`` (e.g. ``"81,559 MiB"``), ``source``,
    ``checked``, ``evidence`` and ``conditions``. It is smaller than the catalog capacity
    because drivers keep part of the memory; plan capacity with the smaller number.
    """
    mem = entry(key).get("memory") or {}
    return mem.get("runtime_reported")


def conflicts(key: str, field: str) -> list[dict[str, Any]]:
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
    labels = {f.get("label") for f in e.get("extra", [])}
    if field not in ("memory", "bandwidth", "tdp") and field not in labels:
        raise ValueError(f"field must be 'memory', 'bandwidth', 'tdp' or an extra label of {key}, got {field!r}")
    return [f for f in e.get("extra", []) if f.get("conflicts_with") == field]


def extra(key: str, label: str) -> dict[str, Any]:
    """An extra documented figure of ``key`` by its label (NVLink bandwidth, pod total, ...)."""
    for f in entry(key).get("extra", []):
        if f.get("label") == label:
            return f
    raise KeyError(f"{key}: no extra figure labelled {label!r}; have: {[f.get('label') for f in entry(key).get('extra', [])]}")


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
                  precision, bool(sparse), key, sparsity_assumed=p["sparse"] is None)


def _fmt_figure(f: dict[str, Any] | None) -> str:
    if not f:
        return "—"
    if f.get("value") is None:
        return f["evidence"]
    unit = f["unit"]
    if unit == "B":
        return fmt_bytes(f["value"], binary=bool(f.get("binary")), digits=3)
    if unit in ("B/s", "FLOP/s", "OP/s", "W"):
        # FLOP/s keeps the course's one spelling (TFLOP/s); integer rates read as vendors print them (TOPS)
        return fmt_si(f["value"], unit if unit == "FLOP/s" else unit.replace("OP/s", "OPS"), digits=3)
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
            t.add(e["name"], p["precision"].upper(), SPARSITY_KO[p["sparse"]],
                  (p.get("accumulate") or "—").upper(), p.get("scope", "—"),
                  _fmt_figure(p),
                  describe(e.get("memory")), describe(e.get("bandwidth")), p["evidence"],
                  f"{src.get('title', '—')} ({p.get('checked', '—')})")
    return t
