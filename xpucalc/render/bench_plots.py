"""Plots of measurements (Korean labels): bandwidth over array size, measured roofline, collectives,
and the source's reference runs (beside a reader's own results; beside their roofline floors)."""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from .. import evidence
from ..bench.conditions import PATH_LABELS
from ..bench.reference import BOUNDARIES, ReferenceRun, check_boundary, floor_gaps
from ..core.device import Device
from ..units import GB, GFLOPS, MS, TFLOPS, US
from .bench_tables import SHORT_NAMES
from .plot import COLUMN_WIDTH_IN, MIN_FONT_PT, legend_below, plain_log_ticks, setup_korean_font

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
    ax = _axes(ax, 5.4)
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
        # x in MiB, y in axes fractions: the label stays inside the axes whatever the bandwidths are
        ax.text(nbytes / 2**20, 0.97 - 0.09 * j, f" {label}", fontsize=MIN_FONT_PT, color="gray", va="top",
                transform=ax.get_xaxis_transform())
    plain_log_ticks(ax, "x")
    ax.set_xlabel("배열 하나의 크기 (MiB)")
    ax.set_ylabel("대역폭 (GB/s, STREAM 방식)")
    ax.set_title(title, wrap=True)  # a long title (a device name) wraps inside the figure
    ax.grid(True, which="both", alpha=0.3)
    legend_below(ax, ncol=2)
    return ax


def measured_roofline_plot(roofs: Sequence[Device], points: Mapping[str, Sequence[tuple[float, float]]],
                           spec: Device | None = None, ax: Any = None,
                           title: str = "측정한 루프라인: 측정한 상한선 위의 측정점") -> Any:
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
                  label=f"문서의 상한선: {spec.name} ({evidence.DOCUMENTED})")
    for j, (label, pts) in enumerate(points.items()):
        if pts:
            ii, ff = zip(*pts)
            ax.loglog(ii, np.asarray(ff) / unit, _MARKERS[j % len(_MARKERS)], ms=6, mec="black", label=label)
    plain_log_ticks(ax, "both")
    ax.set_xlabel("산술 강도 I (FLOP/Byte)")
    ax.set_ylabel(f"성능 ({unit_label})")
    ax.set_title(title, wrap=True)  # a long title (a device name) wraps inside the figure
    ax.grid(True, which="both", alpha=0.3)
    legend_below(ax)
    return ax


def collective_time_plot(rows: Sequence[Any], fit: Any = None, formula_s: Sequence[float] | None = None,
                         ax: Any = None, title: str = "all-reduce 시간: 측정, α–β 맞춤, 링 공식",
                         extra_fits: Mapping[str, Any] | None = None) -> Any:
    """Measured time per operation against size (log-log), with the α–β fit and the ring formula's times.

    Args:
        rows: ``xpucalc.bench.collectives.CollectiveRow`` of one op.
        fit: an ``xpucalc.bench.alpha_beta.AlphaBetaFit`` (drawn as a line).
        formula_s: the formula's time at each row's size (e.g. from ``compare_with_ring_formula``), seconds.
        extra_fits: label -> another fit to draw dotted (e.g. one made on the 10th-percentile times).
    """
    if not rows:
        raise ValueError("rows must hold at least one CollectiveRow")
    ax = _axes(ax)
    s = np.asarray([r.size_bytes for r in rows], dtype=float)
    # each series names its evidence: the runs' label for what was timed, 분석 계산 for what is computed from them
    ev, computed = evidence.weakest(r.evidence for r in rows), evidence.COMPUTED
    ax.loglog(s, [r.time_s * 1e3 for r in rows], "o", mec="black", label=f"측정 (중앙값, {ev})")
    ax.loglog(s, [r.timing.min_s * 1e3 for r in rows], "_", color="gray", ms=10, label=f"측정 (최소, {ev})")
    if fit is not None:
        xs = np.logspace(np.log10(s.min()), np.log10(s.max()), 200)
        ax.loglog(xs, [fit.predict(x) * 1e3 for x in xs], "-",
                  label=f"α–β 맞춤 ({computed}):\nα = {fit.alpha_s * 1e6:,.0f} µs, 1/β = {fit.bandwidth / GB:.2f} GB/s, "
                        f"R² = {fit.r2:.3f}")
    for label, other in (extra_fits or {}).items():
        xs = np.logspace(np.log10(s.min()), np.log10(s.max()), 200)
        ax.loglog(xs, [other.predict(x) * 1e3 for x in xs], ":", label=f"{label} ({computed}):\n"
                  f"α = {other.alpha_s * 1e6:,.0f} µs, 1/β = {other.bandwidth / GB:.2f} GB/s, R² = {other.r2:.3f}")
    if formula_s is not None:
        ax.loglog(s, np.asarray(formula_s) * 1e3, "--", label=f"링 공식 2(n−1)/n·S/B\n(지연 항 없음, {computed})")
    plain_log_ticks(ax, "both")
    ax.set_xlabel("메시지 크기 S (바이트)")
    ax.set_ylabel("시간 (ms)")
    ax.set_title(title, wrap=True)  # a long title (a device name) wraps inside the figure
    ax.grid(True, which="both", alpha=0.3)
    legend_below(ax)
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
    plain_log_ticks(ax, "x")
    ax.set_xlabel("메시지 크기 S (바이트)")
    ax.set_ylabel("busbw (GB/s)")
    ax.set_title(title, wrap=True)  # a long title (a device name) wraps inside the figure
    ax.grid(True, which="both", alpha=0.3)
    legend_below(ax)
    return ax


# --------------------------------------------------------------------------- the reference runs

def _group_label(key: tuple[str, str, int], framework: str) -> str:
    path, precision, m = key
    name = PATH_LABELS.get((framework, path), path)
    return f"{name}\n{precision.upper()}, M={m}"


def _bars_height_in(groups: int) -> float:
    """Figure height, inches, of a horizontal bar chart of ``groups`` two-line groups with title and legend."""
    return 0.5 * groups + 2.4


def beside_reference_plot(results: Sequence[Any], reference_runs: Sequence[ReferenceRun], boundary: str = "device",
                          ax: Any = None, title: str | None = None, mine_label: str | None = None,
                          legend: bool = True) -> Any:
    """Horizontal bars (log scale, ms) of a reader's results next to the reference runs, one row per condition.

    Horizontal, so the condition labels sit on the left in full, one under the other, and the figure stays
    legible scaled down to a phone's column (no rotated or overprinted labels).

    Args:
        results: :class:`~xpucalc.bench.BenchResult` objects (unsupported ones are marked "미지원").
        reference_runs: reference rows to compare with, usually ``load("a100-sxm4-40gb")``.
        boundary: ``"device"``, ``"with_transfer"`` or ``"first_call"``.
        ax: matplotlib axes (new figure if None).
        title: axes title (Korean default).
        mine_label: legend label of the reader's bars (default: device label + evidence, on two lines).
        legend: draw the legend under the axes (panels stacked in one figure may show it once).

    Returns:
        the matplotlib axes. Rows follow the reference's (path, precision, M) order from the top,
        followed by any of the reader's keys the reference lacks; in each row the reference bar is above
        the reader's.
    """
    check_boundary(boundary)
    if not reference_runs:
        raise ValueError("reference_runs must hold at least one ReferenceRun")
    ref_by_key = {r.key(): r for r in reference_runs}
    mine_by_key = {r.key(): r for r in results}
    keys = list(ref_by_key) + [k for k in mine_by_key if k not in ref_by_key]
    ax = _axes(ax, _bars_height_in(len(keys)))
    framework = reference_runs[0].framework
    y = np.arange(len(keys))
    height = 0.38

    def mine_time(r: Any) -> float | None:
        if not r.ok:
            return None
        if boundary == "first_call":
            return r.first_call_s
        timing = r.device if boundary == "device" else r.with_transfer
        return None if timing is None else timing.median_s

    ref_vals = [ref_by_key[k].time_s(boundary) / MS if k in ref_by_key else np.nan for k in keys]
    mine_vals = []
    for k in keys:
        r = mine_by_key.get(k)
        t = mine_time(r) if r is not None else None
        mine_vals.append(np.nan if t is None else t / MS)
    ref0 = reference_runs[0]
    ax.barh(y - height / 2, ref_vals, height, color="#4C72B0",
            label=f"{ref0.device}\n({ref0.framework} {ref0.framework_version}, {ref0.date}, {ref0.evidence})")
    if mine_label is None:
        envs = [r.environment for r in results if getattr(r, "environment", None) is not None]
        mine_label = (f"내 실행: {envs[0].label()}\n({envs[0].framework} {envs[0].framework_version}, "
                      f"{envs[0].date}, {envs[0].evidence})") if envs else "내 실행"
    ax.barh(y + height / 2, mine_vals, height, color="#DD8452", label=mine_label)
    ax.set_xscale("log")
    finite = [v for v in ref_vals + mine_vals if np.isfinite(v) and v > 0]
    lo = min(finite) if finite else 1e-3
    hi = max(finite) if finite else 1.0
    ax.set_xlim(lo / 3, hi * 2)
    plain_log_ticks(ax, "x")
    for i, (k, v) in enumerate(zip(keys, mine_vals)):
        if not np.isfinite(v):
            reason = "미지원" if k in mine_by_key else "미실행"
            ax.text(lo / 2.6, y[i] + height / 2, reason, ha="left", va="center", fontsize=MIN_FONT_PT, color="crimson")
    ax.set_yticks(y)
    ax.set_yticklabels([_group_label(k, framework) for k in keys])
    ax.set_ylim(len(keys) - 0.4, -0.6)  # first condition on top
    ax.set_xlabel("시간 (ms, 로그 축)")
    ax.set_title(title or f"{BOUNDARIES[boundary]}:\n내 실행과 기준 실측 비교", wrap=True)
    ax.grid(True, axis="x", which="both", alpha=0.3)
    if legend:
        legend_below(ax)
    else:
        ax.figure.tight_layout()
    return ax


def floor_plot(runs: Sequence[ReferenceRun] | None = None, precision: str = "bf16", ax: Any = None,
               title: str | None = None) -> Any:
    """Horizontal bars (log scale, µs) of the measured per-call time and the roofline floor for ``precision``'s
    runs, one row per (device, path, M) from the top.

    The measured bar (above) ends in the gap ("37배"), the floor bar (below) in its value; the labels sit on
    the left, so the figure stays legible scaled down to a phone's column.

    Args:
        runs: reference runs (default: all of them).
        precision: ``"bf16"`` or ``"fp32"``.
        ax: matplotlib axes (new figure if None).
        title: axes title (default: the precision and what is drawn).

    Returns:
        the matplotlib axes.
    """
    gaps = [fg for fg in floor_gaps(runs) if fg.run.precision == precision and fg.floor_s is not None]
    if not gaps:
        raise ValueError(f"precision {precision!r}: no reference run with a roofline floor; use 'bf16' or 'fp32'")
    ax = _axes(ax, _bars_height_in(len(gaps)))
    y = np.arange(len(gaps))
    height = 0.38
    measured = [fg.run.device_s / US for fg in gaps]
    floors = [fg.floor_s / US for fg in gaps]
    # legend labels: the weakest label of the bars each series draws
    b1 = ax.barh(y - height / 2, measured, height, color="#4C72B0",
                 label=f"잰 값: 호출 1회 중앙값 ({evidence.weakest(fg.run.evidence for fg in gaps)})\n"
                       "막대 끝 숫자는 하한의 몇 배인지")
    b2 = ax.barh(y + height / 2, floors, height, color="#55A868", label=f"루프라인 하한 ({evidence.COMPUTED})")
    ax.bar_label(b1, labels=[f"{fg.gap:,.0f}배" for fg in gaps], fontsize=MIN_FONT_PT, padding=2)
    ax.bar_label(b2, labels=[f"{v:.2f}" for v in floors], fontsize=MIN_FONT_PT, padding=2)
    ax.set_xscale("log")
    ax.set_xlim(min(floors) / 2, max(measured) * 8)  # room right of the longest bar for its label
    plain_log_ticks(ax, "x")
    ax.set_yticks(y)
    ax.set_yticklabels([f"{SHORT_NAMES.get(fg.run.device_key, fg.run.device)} {fg.run.path_label}\nM={fg.run.m}"
                        for fg in gaps])
    ax.set_ylim(len(gaps) - 0.4, -0.6)  # first run on top
    ax.set_xlabel("시간 (µs, 로그 축)")
    ax.set_title(title or f"{precision.upper()}: 잰 시간과 루프라인 하한", wrap=True)
    ax.grid(True, axis="x", which="both", alpha=0.3)
    legend_below(ax)
    return ax


__all__ = ["bandwidth_plot", "beside_reference_plot", "busbw_plot", "collective_time_plot", "floor_plot",
           "measured_roofline_plot"]
