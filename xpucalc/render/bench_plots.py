"""Plots of the device measurements (Korean labels): bandwidth over array size, measured roofline, collectives."""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ..core.device import Device
from .plot import COLUMN_WIDTH_IN, MIN_FONT_PT, setup_korean_font
from ..units import GB, GFLOPS, TFLOPS

_MARKERS = ("o", "s", "^", "D", "v", "P")


def _axes(ax: Any, height: float = 4.4) -> Any:
    import matplotlib.pyplot as plt

    setup_korean_font()
    if ax is None:
        _, ax = plt.subplots(figsize=(COLUMN_WIDTH_IN, height))
    return ax


def bandwidth_plot(results: Sequence[Any], caches: Mapping[str, float] | None = None, ax: Any = None,
                   title: str = "배열 크기에 따른 STREAM 대역폭") -> Any:
    """GB/s (median, and best as a thin line) against the size of each array, one line per STREAM kind.

    Args:
        results: ``xpucalc.bench.bandwidth.StreamResult`` objects (any kinds and sizes).
        caches: label -> bytes of cache sizes to mark as vertical lines (e.g. ``{"L2": 2**21, "LLC": 3e8}``).
    """
    if not results:
        raise ValueError("results must hold at least one StreamResult")
    ax = _axes(ax)
    kinds = list(dict.fromkeys(r.kind for r in results))
    for i, kind in enumerate(kinds):
        rs = sorted((r for r in results if r.kind == kind), key=lambda r: r.nbytes)
        xs = [r.nbytes / 2**20 for r in rs]
        line, = ax.semilogx(xs, [r.bytes_per_s / GB for r in rs], marker=_MARKERS[i % len(_MARKERS)],
                            label=f"{kind} (중앙값)")
        ax.semilogx(xs, [r.best_bytes_per_s / GB for r in rs], ls=":", color=line.get_color(), lw=1,
                    label=f"{kind} (최고)")
    for j, (label, nbytes) in enumerate((caches or {}).items()):
        ax.axvline(nbytes / 2**20, color="gray", ls="--", lw=1)
        ax.text(nbytes / 2**20, ax.get_ylim()[1] * (0.95 - 0.07 * j), f" {label}", fontsize=MIN_FONT_PT, color="gray",
                va="top")
    ax.set_xlabel("배열 하나의 크기 (MiB)")
    ax.set_ylabel("대역폭 (GB/s, STREAM 방식으로 센 바이트)")
    ax.set_title(title)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=MIN_FONT_PT)
    return ax


def measured_roofline_plot(roofs: Sequence[Device], points: Mapping[str, Sequence[tuple[float, float]]],
                           spec: Device | None = None, ax: Any = None,
                           title: str = "실측 루프라인: 측정한 지붕 위의 측정점") -> Any:
    """Roofs min(peak, bandwidth x I) of ``roofs`` (measured) and of ``spec`` (documented, dashed), with points.

    Args:
        roofs: measured roofs as ``xpucalc.core.device.Device`` (peak FLOP/s, bandwidth bytes/s); the first
            one's ridge point is marked.
        points: series label -> (intensity FLOP/byte, achieved FLOP/s) pairs.
        spec: the catalog's device, drawn dashed, when the run was on a catalogued accelerator.
    """
    if not roofs:
        raise ValueError("roofs must hold at least one measured roof (a Device)")
    ax = _axes(ax, 5.2)
    all_i = [i for pts in points.values() for i, _ in pts] + [d.ridge_point for d in roofs]
    if spec is not None:
        all_i.append(spec.ridge_point)
    lo, hi = min(all_i) / 4, max(all_i) * 4
    xs = np.logspace(np.log10(lo), np.log10(hi), 300)
    unit, unit_label = (TFLOPS, "TFLOP/s") if max(d.peak_flops for d in roofs) >= TFLOPS else (GFLOPS, "GFLOP/s")
    for k, d in enumerate(roofs):
        ax.loglog(xs, np.minimum(d.peak_flops, d.bandwidth * xs) / unit, lw=2 if k == 0 else 1.2,
                  label=f"{d.name}: {d.peak_flops / unit:,.3g} {unit_label}, {d.bandwidth / GB:,.3g} GB/s")
    first = roofs[0]
    ax.axvline(first.ridge_point, color="gray", ls=":", lw=1)
    ax.annotate(f"측정 분기점 {first.ridge_point:.3g} FLOP/B", (first.ridge_point, first.peak_flops / unit),
                textcoords="offset points", xytext=(6, -14), fontsize=MIN_FONT_PT)
    if spec is not None:
        ax.loglog(xs, np.minimum(spec.peak_flops, spec.bandwidth * xs) / unit, ls="--", color="black", lw=1.2,
                  label=f"문서 확인 지붕: {spec.name}")
    for j, (label, pts) in enumerate(points.items()):
        if pts:
            ii, ff = zip(*pts)
            ax.loglog(ii, np.asarray(ff) / unit, _MARKERS[j % len(_MARKERS)], ms=6, mec="black", label=label)
    ax.set_xlabel("산술 강도 I (FLOP/Byte)")
    ax.set_ylabel(f"성능 ({unit_label})")
    ax.set_title(title)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=MIN_FONT_PT, loc="upper center", bbox_to_anchor=(0.5, -0.14), ncol=1, frameon=False)
    return ax


def collective_time_plot(rows: Sequence[Any], fit: Any = None, formula_s: Sequence[float] | None = None,
                         ax: Any = None, title: str = "all-reduce 시간: 측정, α–β 맞춤, 링 공식",
                         extra_fits: Mapping[str, Any] | None = None) -> Any:
    """Measured time per operation against size (log-log), with the α–β fit and the ring formula's times.

    Args:
        rows: ``xpucalc.bench.collectives.CollectiveRow`` of one op.
        fit: an ``xpucalc.bench.collectives.AlphaBetaFit`` (drawn as a line).
        formula_s: the formula's time at each row's size (e.g. from ``compare_with_ring_formula``), seconds.
        extra_fits: label -> another fit to draw dotted (e.g. one made on the 10th-percentile times).
    """
    if not rows:
        raise ValueError("rows must hold at least one CollectiveRow")
    ax = _axes(ax)
    s = np.asarray([r.size_bytes for r in rows], dtype=float)
    ax.loglog(s, [r.time_s * 1e3 for r in rows], "o", mec="black", label="측정 (중앙값)")
    ax.loglog(s, [r.timing.min_s * 1e3 for r in rows], "_", color="gray", ms=10, label="측정 (최소)")
    if fit is not None:
        xs = np.logspace(np.log10(s.min()), np.log10(s.max()), 200)
        ax.loglog(xs, [fit.predict(x) * 1e3 for x in xs], "-",
                  label=f"α–β 맞춤: α = {fit.alpha_s * 1e6:,.0f} µs, 1/β = {fit.bandwidth / GB:.2f} GB/s, "
                        f"R² = {fit.r2:.3f}")
    for label, other in (extra_fits or {}).items():
        xs = np.logspace(np.log10(s.min()), np.log10(s.max()), 200)
        ax.loglog(xs, [other.predict(x) * 1e3 for x in xs], ":", label=f"{label}: α = {other.alpha_s * 1e6:,.0f} µs, "
                  f"1/β = {other.bandwidth / GB:.2f} GB/s, R² = {other.r2:.3f}")
    if formula_s is not None:
        ax.loglog(s, np.asarray(formula_s) * 1e3, "--", label="링 공식 2(n−1)/n·S/B (지연 항 없음)")
    ax.set_xlabel("메시지 크기 S (바이트)")
    ax.set_ylabel("시간 (ms)")
    ax.set_title(title)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=MIN_FONT_PT, loc="upper center", bbox_to_anchor=(0.5, -0.14), ncol=1, frameon=False)
    return ax


def busbw_plot(rows: Sequence[Any], ax: Any = None, title: str = "버스 대역폭 (nccl-tests 정의)") -> Any:
    """busbw (GB/s) against size, one line per collective in ``rows``."""
    if not rows:
        raise ValueError("rows must hold at least one CollectiveRow")
    ax = _axes(ax)
    ops = list(dict.fromkeys(r.op for r in rows))
    for i, op in enumerate(ops):
        rs = sorted((r for r in rows if r.op == op), key=lambda r: r.size_bytes)
        ax.semilogx([r.size_bytes for r in rs], [r.busbw / GB for r in rs], marker=_MARKERS[i % len(_MARKERS)],
                    label=op.replace("_", "-"))
    ax.set_xlabel("메시지 크기 S (바이트)")
    ax.set_ylabel("busbw (GB/s)")
    ax.set_title(title)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=MIN_FONT_PT)
    return ax


__all__ = ["bandwidth_plot", "busbw_plot", "collective_time_plot", "measured_roofline_plot"]
