"""One device as the LLM estimates see it: capacity, bandwidth, dense peak and links, with where each came from.

:func:`resolve` turns a catalog key, an :class:`xpucalc.Device` or figures typed by hand
into a :class:`Hardware`; ``xpucalc.llm.serve`` and the workload memo both use it, so
a device means the same thing in both. Capacities are bytes, bandwidths bytes/s
(links one way), peaks FLOP/s (dense; ``None`` where the vendor publishes none).
"""
from __future__ import annotations

from dataclasses import dataclass, replace

from ..catalog import devices, interconnect
from .._check import device_figure
from ..core.device import Device


class MissingFigureError(ValueError):
    """A figure the estimate needs is neither in the catalog nor given.

    Attributes:
        argument: the keyword of :func:`resolve` that supplies it (``"memory"`` or ``"bandwidth"``).
    """

    def __init__(self, argument: str, message: str):
        super().__init__(message)
        self.argument = argument


@dataclass(frozen=True)
class Hardware:
    """The figures of one device that serving and the memo need.

    Args:
        name: display name.
        memory: capacity, bytes.
        bandwidth: memory bandwidth, bytes/s.
        peak_flops: dense peak, FLOP/s, or None when not published (decode needs only bandwidth).
        link_bandwidth: one-way device-to-device bandwidth, bytes/s (NVLink, else the PCIe host link).
        link_label: where ``link_bandwidth`` came from.
        host_link_bandwidth: one-way PCIe host link, bytes/s (CPU offload reads over it).
        host_link_label: the PCIe generation and width, e.g. ``"PCIe Gen5 x16"``.
        host_link_assumed: True when the catalog has no PCIe figure and Gen4 x16 is assumed.
        key: catalog key, or None for a device typed by hand.
        peak_precision: catalog precision of ``peak_flops`` (``"bf16"``), None when given by hand or absent.
        peak_accumulate: accumulate precision of that peak when the catalog states one (``"fp32"``).
        from_catalog: True when memory, bandwidth and peak are all the catalog's (no figure typed by hand).
    """

    name: str
    memory: float
    bandwidth: float
    peak_flops: float | None
    link_bandwidth: float
    link_label: str
    host_link_bandwidth: float
    host_link_label: str
    host_link_assumed: bool = False
    key: str | None = None
    peak_precision: str | None = None
    peak_accumulate: str | None = None
    from_catalog: bool = True

    @property
    def peak_label(self) -> str:
        """What the peak is: ``"BF16 dense"``, ``"given dense peak"`` or ``"미공개 (no dense peak in the catalog)"``."""
        if self.peak_flops is None:
            return "미공개 (no dense peak in the catalog)"
        if self.peak_precision is None:
            return "given dense peak"
        return f"{self.peak_precision.upper()} dense" + (
            f", {self.peak_accumulate.upper()} accumulate" if self.peak_accumulate else "")


def _extra_value(key: str | None, label: str) -> float | None:
    if key is None:
        return None
    try:
        f = devices.extra(key, label)
    except KeyError:
        return None
    return f.value or None


def host_link(key: str | None) -> tuple[float, str, bool]:
    """One-way PCIe host link of a catalog device: (bytes/s, label, assumed); Gen4 x16 when the catalog has none."""
    for gen in (5, 4):
        v = _extra_value(key, f"PCIe Gen{gen} bandwidth")
        if v:
            return v / 2.0, f"PCIe Gen{gen} x16", False
    return interconnect.pcie_bandwidth(4, 16), "PCIe Gen4 x16", True


def device_link(key: str | None) -> tuple[float, str]:
    """One-way device-to-device bandwidth from the catalog: NVLink if the device has it, else its PCIe host link."""
    for label in ("NVLink bandwidth", "NVLink 5 bandwidth"):
        v = _extra_value(key, label)
        if v:
            return v / 2.0, f"{label} ÷ 2 (NVIDIA adds both directions)"
    bw, label, assumed = host_link(key)
    if assumed:
        return bw, "PCIe Gen4 x16 one way (assumed: no link in the catalog)"
    return bw, f"{label} ÷ 2 (both directions added)"


def _catalog_peak(key: str, order: list[str]) -> tuple[float | None, str | None, str | None]:
    for prec in dict.fromkeys(order):
        try:
            p = devices.peak(key, prec, sparse=False)
        except ValueError:
            continue
        if p.value:
            return float(p.value), prec, p.accumulate
    return None, None, None


def resolve(device: str | Device | Hardware | None, precision: str | None = None, weight_bytes: float = 2.0, *,
            memory: float | None = None, bandwidth: float | None = None, peak_flops: float | None = None,
            name: str | None = None) -> Hardware:
    """Resolve a device into :class:`Hardware`; ``memory``/``bandwidth``/``peak_flops`` override the catalog.

    Args:
        device: catalog key (``"h100-sxm"``), an :class:`xpucalc.Device` (its ``memory`` must be set),
            a :class:`Hardware` (returned as it is when nothing overrides it), or None for a device
            typed by hand (then ``memory`` and ``bandwidth`` are required).
        precision: catalog precision of the dense peak (one of ``xpucalc.devices.PRECISIONS``; any other
            name is refused). Default: FP8 when ``weight_bytes <= 1``, then BF16, then FP16, the first the
            catalog publishes; a named precision the device lacks falls back to BF16, then FP16
            (``peak_label`` says which one was used).
        weight_bytes: bytes per weight, only to choose the default precision.
        memory: capacity, bytes (overrides the catalog).
        bandwidth: memory bandwidth, bytes/s (overrides the catalog).
        peak_flops: dense peak, FLOP/s (overrides the catalog).
        name: display name for a device typed by hand.

    Raises:
        ValueError: for a precision the catalog does not know, for a figure too small to be in SI
            units (``memory=80`` looks like GB: pass 80e9), and for a Device with a sparse peak (pass
            ``device.dense()``).
        MissingFigureError: (a ValueError) when capacity or bandwidth is neither in the catalog nor given;
            its ``argument`` names the keyword to pass.
    """
    given = {k: device_figure(v, k, unit) for k, v, unit in (("memory", memory, "bytes"), ("bandwidth", bandwidth, "bytes/s"),
                                                              ("peak_flops", peak_flops, "FLOP/s")) if v is not None}
    if precision is not None and precision not in devices.PRECISIONS:
        hint = f"; names are lower case: precision={precision.lower()!r}" \
            if isinstance(precision, str) and precision.lower() in devices.PRECISIONS else ""
        raise ValueError(f"precision {precision!r} is not a precision of the catalog ({', '.join(devices.PRECISIONS)}){hint}; "
                         "for another format pass its dense peak as peak_flops= (FLOP/s)")
    if isinstance(device, Hardware):
        if not given:
            return device
        peak = {"peak_flops": given["peak_flops"], "peak_precision": None, "peak_accumulate": None} \
            if "peak_flops" in given else {}
        return replace(device, **{k: v for k, v in given.items() if k != "peak_flops"}, **peak, from_catalog=False)
    if device is None:
        for arg in ("memory", "bandwidth"):
            if arg not in given:
                raise MissingFigureError(arg, f"{arg} is required for a device typed by hand (no catalog key); "
                                              f"pass {arg}=...")
        hb, hl, ha = host_link(None)
        lb, ll = device_link(None)
        return Hardware(name or "hand-entered device", given["memory"], given["bandwidth"], given.get("peak_flops"),
                        lb, ll, hb, hl, ha, None, None, None, False)
    if isinstance(device, Device):
        mem = given.get("memory", device.memory)
        if mem is None:
            raise MissingFigureError("memory", f"{device.name}: memory is unknown; create the Device with memory= "
                                               "(bytes) or pass memory=")
        device_figure(mem, "memory", "bytes")
        device_figure(given.get("bandwidth", device.bandwidth), "bandwidth", "bytes/s")
        if device.sparse and "peak_flops" not in given:
            raise ValueError(f"device {device.name!r} carries a sparse (2:4) peak_flops, which no dense LLM layer "
                             "reaches; pass device.dense() (halves the peak) or the dense peak as peak_flops= (FLOP/s)")
        peak = given.get("peak_flops", device.peak_flops)
        lb, ll = device_link(device.key)
        hb, hl, ha = host_link(device.key)
        prec = None if "peak_flops" in given or not device.precision else device.precision
        return Hardware(device.name, float(mem), float(given.get("bandwidth", device.bandwidth)),
                        None if peak is None else float(peak), lb, ll, hb, hl, ha, device.key, prec, None, False)
    if not isinstance(device, str):
        raise ValueError(f"device must be a catalog key (str), an xpucalc.Device or a Hardware, got "
                         f"{type(device).__name__}")
    e = devices.entry(device)
    mem = given.get("memory", e.memory.value if e.memory else None)
    bw = given.get("bandwidth", e.bandwidth.value if e.bandwidth else None)
    if not mem:
        raise MissingFigureError("memory", f"memory: the catalog has no memory capacity for {device}; "
                                           "pass memory=... (bytes)")
    if not bw:
        raise MissingFigureError("bandwidth", f"bandwidth: the catalog has no memory bandwidth for {device}; "
                                              "pass bandwidth=... (bytes/s)")
    if "peak_flops" in given:
        peak, prec, acc = given["peak_flops"], None, None
    else:
        first = [precision] if precision else (["fp8"] if weight_bytes <= 1 else [])
        peak, prec, acc = _catalog_peak(device, first + ["bf16", "fp16"])
    lb, ll = device_link(device)
    hb, hl, ha = host_link(device)
    return Hardware(e.name, float(mem), float(bw), peak, lb, ll, hb, hl, ha, device, prec, acc, not given)


__all__ = ["Hardware", "MissingFigureError", "device_link", "host_link", "resolve"]
