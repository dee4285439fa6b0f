"""Plot helpers with Korean labels that render (NanumGothic from the koreanize-matplotlib wheel, else a system font)."""
from __future__ import annotations

import math
import warnings
from collections.abc import Sequence

import numpy as np

from ..core.device import Device
from ..core.roofline import attainable, crossover, roofline
from ..units import TFLOPS, fmt_num
from ..core.workload import Workload

_FONT_READY = False
_FONT_WARNED = False

#: Korean-capable families tried, in order, when the koreanize-matplotlib package is not installed
#: (Debian/Ubuntu fonts-nanum and fonts-noto-cjk; the CJK JP face of Noto carries the Hangul glyphs too).
KOREAN_FALLBACK_FAMILIES = ("NanumGothic", "NanumBarunGothic", "Noto Sans CJK KR", "Noto Sans KR", "Noto Sans CJK JP",
                            "Source Han Sans KR", "UnDotum", "Malgun Gothic", "Apple SD Gothic Neo", "AppleGothic")
#: The one line shown when no Korean font is found (a warning, never an error).
NO_KOREAN_FONT = ("한국어 글꼴을 찾지 못했습니다(koreanize-matplotlib도, NanumGothic·Noto Sans CJK 같은 시스템 글꼴도 "
                  "없습니다). 그림의 한글이 네모로 보일 수 있습니다.")


class KoreanFontWarning(UserWarning):
    """No Korean-capable font: Hangul in figures may be drawn as boxes."""


def korean_font_family() -> str | None:
    """The family that draws Hangul here: NanumGothic from koreanize-matplotlib, else the first installed family
    of ``KOREAN_FALLBACK_FAMILIES`` (matplotlib's font manager), else None. Never raises."""
    try:
        import koreanize_matplotlib  # noqa: F401  (registers NanumGothic with the font manager)

        return "NanumGothic"
    except Exception:  # noqa: BLE001 - not installed (ImportError) or broken: fall back, never fail a plot
        pass
    try:
        from matplotlib import font_manager

        installed = {f.name for f in font_manager.fontManager.ttflist}
    except Exception:  # noqa: BLE001
        return None
    return next((name for name in KOREAN_FALLBACK_FAMILIES if name in installed), None)


# The site's content column shows a figure at about 690 px; at matplotlib's 100 dpi a figure
# up to this wide is shown at (nearly) its natural size, so its text keeps the size it was drawn at.
COLUMN_WIDTH_IN = 6.8
# Smallest font, in points, that stays >= 9 px on screen when a COLUMN_WIDTH_IN figure is shown
# at 70 % of its natural size (9 px / 0.7 / (100 px/in) * 72 pt/in = 9.3 pt).
MIN_FONT_PT = 9.5
READABLE_RC = {
    "figure.figsize": (COLUMN_WIDTH_IN, 4.2),
    "figure.dpi": 100,
    "savefig.dpi": 100,
    "font.size": 11,
    "axes.titlesize": 12,
    "axes.labelsize": 11,
    "xtick.labelsize": 10,
    "ytick.labelsize": 10,
    "legend.fontsize": 10,
    "figure.titlesize": 12,
}


def setup_korean_font() -> str:
    """Make matplotlib draw Hangul: NanumGothic (shipped by koreanize-matplotlib) or a system Korean font.

    Text is drawn with DejaVu Sans first and falls back to the Korean family for Hangul
    (:func:`korean_font_family`). That order matters: NanumGothic has no minus sign (U+2212), and the tick
    labels of log axes (``10^{-1}``) are typeset in the first font of the family. Without any Korean font it
    warns once (:class:`KoreanFontWarning`, one Korean line) and goes on with DejaVu Sans; it never raises.
    It also sets figure and font sizes for the site's content column (``READABLE_RC``):
    a default figure 6.8 in wide at 100 dpi and text no smaller than 10 pt.
    Returns the first family name. Safe to call many times.
    """
    global _FONT_READY, _FONT_WARNED
    import matplotlib

    if not _FONT_READY:
        family = korean_font_family()
        matplotlib.rcParams["font.family"] = ["DejaVu Sans"] + ([family] if family else [])
        matplotlib.rcParams["axes.unicode_minus"] = False
        matplotlib.rcParams.update(READABLE_RC)  # sized for the content column (see COLUMN_WIDTH_IN)
        _FONT_READY = True
        if family is None and not _FONT_WARNED:
            _FONT_WARNED = True
            warnings.warn(NO_KOREAN_FONT, KoreanFontWarning, stacklevel=2)
    return str(matplotlib.rcParams["font.family"][0])


def _sig(x: float, figures: int = 3) -> str:
    """``x`` with ``figures`` significant figures and thousands separators, for legends: 295.343 -> "295"."""
    if x == 0 or not math.isfinite(x):
        return f"{x:g}"
    decimals = max(0, figures - 1 - math.floor(math.log10(abs(x))))
    return fmt_num(x, decimals)


def roofline_plot(devices: Sequence[Device], workloads: Sequence[Workload] = (), ax=None,
                  intensity_range: tuple[float, float] | None = None, mark_crossover: bool = True,
                  title: str = "Roofline: 산술 강도에 따른 성능 상한"):
    """Log-log roofline of ``devices`` with ``workloads`` marked on each roof.

    Args:
        devices: devices to draw (each roof min(peak, bandwidth x I)).
        workloads: workloads to mark at their intensity on every device's roof.
        ax: matplotlib axes to draw on (a new figure if None).
        intensity_range: (min, max) FLOP/byte of the x axis; chosen from the data if None.
        mark_crossover: with exactly two devices, mark where their roofs cross.
        title: axes title.

    Returns:
        the matplotlib axes.
    """
    import matplotlib.pyplot as plt

    if not devices:
        raise ValueError("devices must hold at least one Device")
    setup_korean_font()
    if ax is None:
        _, ax = plt.subplots(figsize=(COLUMN_WIDTH_IN, 5.6))
    ridges = [d.ridge_point for d in devices]
    pts = ridges + [w.intensity for w in workloads]
    lo, hi = intensity_range or (min(pts) / 20, max(pts) * 20)
    xs = np.logspace(np.log10(lo), np.log10(hi), 400)
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    markers = ["o", "s", "^", "D", "v"]
    for i, d in enumerate(devices):
        c = colors[i % len(colors)]
        ys = np.minimum(d.peak_flops, d.bandwidth * xs) / TFLOPS
        ax.loglog(xs, ys, color=c, lw=2, label=f"{d.name} (분기점 {_sig(d.ridge_point)} FLOP/B)")
        ax.axvline(d.ridge_point, color=c, ls=":", lw=1)
        for j, w in enumerate(workloads):
            r = roofline(w, d)
            ax.plot(w.intensity, r.attainable / TFLOPS, markers[j % len(markers)], color=c, ms=8,
                    mec="black", label=f"{w.name} @ {d.name}: {_sig(r.time * 1e3)} ms")
    if mark_crossover and len(devices) == 2:
        x = crossover(devices[0], devices[1])
        if x is not None:
            y = attainable(x, devices[0]) / TFLOPS
            ax.plot(x, y, "*", color="crimson", ms=16, mec="black", zorder=5, label=f"두 상한이 같아지는 점 I = {_sig(x)}")
    ax.set_xlabel("산술 강도 I (FLOP/Byte)")
    ax.set_ylabel("성능 상한 R_roof (TFLOP/s)")
    ax.set_title(title)
    ax.grid(True, which="both", alpha=0.3)
    legend_below(ax)
    return ax


def legend_below(ax, ncol: int = 1, fontsize: float = MIN_FONT_PT):
    """Put the legend under the axes, outside the data (a legend inside covers points and lines).

    Args:
        ax: matplotlib axes with labelled artists.
        ncol: legend columns.
        fontsize: legend text size in points (at least ``MIN_FONT_PT`` to stay legible on the site).

    Returns:
        the legend.
    """
    if fontsize < MIN_FONT_PT:
        raise ValueError(f"fontsize {fontsize} pt is below MIN_FONT_PT = {MIN_FONT_PT} pt; use a larger size")
    leg = ax.legend(fontsize=fontsize, loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=ncol, frameon=False)
    ax.figure.tight_layout()
    return leg


def log_ticks(ax, axis: str = "y"):
    """Label 1-2-5 ticks on a log axis, so a short log range still shows at least two labelled ticks.

    Args:
        ax: matplotlib axes whose ``axis`` ("x", "y" or "both") uses a log scale.
        axis: which axis to label.

    Returns:
        the axes.
    """
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    if axis not in ("x", "y", "both"):
        raise ValueError(f"axis must be 'x', 'y' or 'both', not {axis!r}")
    for name in ("x", "y") if axis == "both" else (axis,):
        a = getattr(ax, f"{name}axis")
        a.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0), numticks=30))
        a.set_major_formatter(FuncFormatter(lambda v, _pos: f"{v:g}"))  # 0.2, 5, 1e+04
        a.set_minor_formatter(NullFormatter())
    return ax
