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


# Sizes for the site's content column. A figure is one raster image: on a laptop it is shown at its natural
# size (the column is about 690 px), on a phone it is scaled down to the column, PHONE_COLUMN_PX wide at a
# 390 px viewport (measured in Chromium). Scaling keeps the ratio of text to figure width, so what decides the
# text a phone reader sees is font size / figure width: a figure w inches wide (at any dpi) shows text of
# s points at s / 72 * PHONE_COLUMN_PX / w CSS px. The defaults are drawn for the phone first.
PHONE_COLUMN_PX = 342.0
#: Smallest text a reader should meet on screen, CSS px.
MIN_SCREEN_PX = 9.0
#: Default figure width, inches (560 px at 100 dpi: natural size on a laptop, 0.61 x on a phone).
COLUMN_WIDTH_IN = 5.6
#: Smallest font, points, of a COLUMN_WIDTH_IN figure: 11 / 72 * 342 / 5.6 = 9.3 px on a phone.
MIN_FONT_PT = 11.0
READABLE_RC = {
    "figure.figsize": (COLUMN_WIDTH_IN, 4.0),
    "figure.dpi": 100,
    "savefig.dpi": 100,
    "font.size": MIN_FONT_PT,
    "axes.titlesize": 12,
    "axes.labelsize": MIN_FONT_PT,
    "xtick.labelsize": MIN_FONT_PT,
    "ytick.labelsize": MIN_FONT_PT,
    "legend.fontsize": MIN_FONT_PT,
    "legend.title_fontsize": MIN_FONT_PT,
    "figure.titlesize": 12,
}


def min_font_pt(width_in: float) -> float:
    """Smallest font, points, that a figure ``width_in`` inches wide can use and still show MIN_SCREEN_PX on a
    phone (``MIN_SCREEN_PX * 72 * width_in / PHONE_COLUMN_PX``; 10.6 pt at 5.6 in, 14.3 pt at 6.8 in)."""
    if not width_in > 0:
        raise ValueError(f"width_in must be a positive width in inches, got {width_in!r}")
    return MIN_SCREEN_PX * 72 * width_in / PHONE_COLUMN_PX


def setup_korean_font() -> str:
    """Make matplotlib draw Hangul: NanumGothic (shipped by koreanize-matplotlib) or a system Korean font.

    Text is drawn with DejaVu Sans first and falls back to the Korean family for Hangul
    (:func:`korean_font_family`). That order matters: NanumGothic has no minus sign (U+2212), and the tick
    labels of log axes (``10^{-1}``) are typeset in the first font of the family. Without any Korean font it
    warns once (:class:`KoreanFontWarning`, one Korean line) and goes on with DejaVu Sans; it never raises.
    It also sets figure and font sizes for the site's content column (``READABLE_RC``): a default figure
    5.6 in wide at 100 dpi and text no smaller than 11 pt (9 CSS px on a 390 px phone), and, inside IPython,
    shows figures as PNGs that carry their text size and label overlaps (:func:`figure_png`).
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
    _show_figures_with_text_report()  # every call: the inline backend may have re-registered its own formatter
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
    ax.set_title(title, wrap=True)  # a long title (a device name) wraps inside the figure
    ax.grid(True, which="both", alpha=0.3)
    plain_log_ticks(ax, "both")
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
    from matplotlib.transforms import offset_copy

    if fontsize < MIN_FONT_PT:
        raise ValueError(f"fontsize {fontsize} pt is below MIN_FONT_PT = {MIN_FONT_PT} pt; use a larger size")
    fig = ax.figure
    fig.canvas.draw()  # lay out the x tick labels and axis label, to start the legend under them
    under = ax.xaxis.get_tightbbox(fig.canvas.get_renderer())
    gap_pt = 30.0 if under is None else max(ax.bbox.y0 - under.y0, 0.0) * 72 / fig.dpi + 4
    anchor = offset_copy(ax.transAxes, fig=fig, y=-gap_pt, units="points")  # points: the same at any axes height
    leg = ax.legend(fontsize=fontsize, loc="upper center", bbox_to_anchor=(0.5, 0.0), bbox_transform=anchor,
                    ncol=ncol, frameon=False)
    fig.tight_layout()
    return leg


def plain_log_ticks(ax, axis: str = "both", every_125: bool = False):
    """Plain decimal labels on the decade ticks of a log axis ("0.1", "10", "1,000") instead of ``10^{-1}``,
    whose exponent mathtext draws at 70 % size (too small on a phone), and no minor labels. Call it after
    setting the axis limits: a view of less than two decades gets labelled 1-2-5 ticks.

    Args:
        ax: matplotlib axes.
        axis: "x", "y" or "both".
        every_125: label 1-2-5 ticks whatever the range.

    Returns:
        the axes.
    """
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    if axis not in ("x", "y", "both"):
        raise ValueError(f"axis must be 'x', 'y' or 'both', not {axis!r}")
    for name in ("x", "y") if axis == "both" else (axis,):
        a = getattr(ax, f"{name}axis")
        lo, hi = sorted(a.get_view_interval())
        if every_125 or (lo > 0 and hi / lo < 100):  # under two decades: label 1-2-5 ticks, so at least two show
            a.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0), numticks=30))
        a.set_major_formatter(FuncFormatter(lambda v, _pos: f"{v:,g}"))  # 0.01, 10, 1,000, 1e+06
        a.set_minor_formatter(NullFormatter())
    return ax


def log_ticks(ax, axis: str = "y"):
    """Label 1-2-5 ticks on a log axis (``plain_log_ticks`` with ``every_125``), so a short log range still
    shows at least two labelled ticks.

    Args:
        ax: matplotlib axes whose ``axis`` ("x", "y" or "both") uses a log scale.
        axis: which axis to label.

    Returns:
        the axes.
    """
    return plain_log_ticks(ax, axis, every_125=True)


# --------------------------------------------------------------------------- legibility of a drawn figure

#: PNG text keys that :func:`figure_png` writes (the site test reads them from the built pages' images).
PNG_KEY_TEXT_PX = "xpucalc:smallest-text-px"
PNG_KEY_OVERLAPS = "xpucalc:overlapping-labels"
#: JSON ``{"titles": [...], "texts": [...]}``: the axes titles (and suptitle) and every text the figure draws, so that
#: tests/book/test_labels.py can read the evidence labels a stored or built figure spells.
PNG_KEY_TEXTS = "xpucalc:texts"
#: Two text boxes overlap when they share more than this many pixels in both directions.
OVERLAP_TOLERANCE_PX = 1.0


def drawn_texts(fig) -> list:
    """Every non-empty text that ``fig`` draws, with its box: ``[(text artist, Bbox in display pixels)]``.

    Titles, axis labels, the tick labels of the ticks inside the view (not the stale ones matplotlib keeps
    beyond it), legend entries, annotations and bar labels. Draws the figure once to lay it out.
    """
    from matplotlib.axis import Axis
    from matplotlib.text import Text

    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    tick_labels, drawn_ticks = set(), set()
    for ax in fig.axes:
        for axis in ax._axis_map.values():
            for tick in axis.majorTicks + axis.minorTicks:
                tick_labels.update((id(tick.label1), id(tick.label2)))
            for tick in axis._update_ticks():  # the ticks inside the view, as Axis.draw picks them
                drawn_ticks.update((id(tick.label1), id(tick.label2)))
    out, seen = [], set()

    def walk(artist) -> None:
        if id(artist) in seen or not artist.get_visible():  # a hidden legend or axis hides its texts
            return
        if isinstance(artist, Axis) and not artist.axes.axison:  # ax.set_axis_off(): no ticks, no labels
            return
        seen.add(id(artist))
        if isinstance(artist, Text) and artist.get_text().strip() and (
                id(artist) not in tick_labels or id(artist) in drawn_ticks):
            out.append((artist, artist.get_window_extent(renderer)))
        for child in artist.get_children():
            walk(child)

    walk(fig)
    return out


def overlapping_texts(fig, tolerance_px: float = OVERLAP_TOLERANCE_PX) -> list[tuple[str, str]]:
    """Pairs of drawn texts of ``fig`` whose boxes overlap (more than ``tolerance_px`` both ways), as strings."""
    boxes = drawn_texts(fig)
    pairs = []
    for i, (ta, a) in enumerate(boxes):
        for tb, b in boxes[i + 1:]:
            w = min(a.x1, b.x1) - max(a.x0, b.x0)
            h = min(a.y1, b.y1) - max(a.y0, b.y0)
            if w > tolerance_px and h > tolerance_px:
                pairs.append((ta.get_text(), tb.get_text()))
    return pairs


def saved_width_in(fig) -> float:
    """Width in inches of ``fig`` saved as the notebook shows it (``bbox_inches="tight"``, 0.1 in padding)."""
    import matplotlib

    fig.canvas.draw()
    box = fig.get_tightbbox(fig.canvas.get_renderer())
    return float(box.width) + 2 * float(matplotlib.rcParams["savefig.pad_inches"])


#: mathtext draws super- and subscripts at this fraction of the text size (matplotlib's SHRINK_FACTOR):
#: the exponent of a "10^{-2}" tick label is 7.7 pt when the label is 11 pt.
MATHTEXT_SCRIPT_SHRINK = 0.7


def text_pt(text) -> float:
    """Size, points, of the smallest glyphs of a text artist: its font size, times MATHTEXT_SCRIPT_SHRINK
    when it holds mathtext with a super- or subscript (log-axis tick labels such as ``$10^{2}$``)."""
    s = text.get_text()
    script = s.count("$") >= 2 and ("^" in s or "_" in s)
    return float(text.get_fontsize()) * (MATHTEXT_SCRIPT_SHRINK if script else 1.0)


def smallest_text_pt(fig) -> float:
    """Size, points, of the smallest glyphs that ``fig`` draws (see :func:`text_pt`)."""
    texts = drawn_texts(fig)
    if not texts:
        raise ValueError("the figure draws no text")
    return min(text_pt(t) for t, _ in texts)


def phone_text_px(fig, column_px: float = PHONE_COLUMN_PX) -> float:
    """Smallest text of ``fig`` in CSS px as a phone shows it: the saved image scaled down to ``column_px``
    (or left at its natural size when narrower): points / 72 x min(dpi, column_px / saved width in inches)."""
    return smallest_text_pt(fig) / 72 * min(float(fig.dpi), column_px / saved_width_in(fig))


def figure_titles(fig) -> list[str]:
    """The non-empty axes titles (left, centre, right) of ``fig`` and its suptitle, in drawing order."""
    titles = [ax.get_title(loc) for ax in fig.axes for loc in ("left", "center", "right")] + [fig.get_suptitle()]
    return [t for t in titles if t.strip()]


def figure_png(fig) -> bytes:
    """``fig`` as the notebook shows it (PNG, ``bbox_inches="tight"``, at the figure's dpi), with three PNG text
    entries for the tests: PNG_KEY_TEXT_PX, the smallest text in image pixels (points x dpi / 72),
    PNG_KEY_OVERLAPS, the overlapping text pairs ("" when none), and PNG_KEY_TEXTS, the titles and drawn texts
    (JSON). A figure that cannot be measured (no text) is still drawn, without the entries (the tests then
    report it)."""
    import io
    import json

    try:
        pairs = overlapping_texts(fig)
        texts = list(dict.fromkeys(t.get_text() for t, _ in drawn_texts(fig)))
        meta = {PNG_KEY_TEXT_PX: f"{smallest_text_pt(fig) * fig.dpi / 72:.2f}",
                PNG_KEY_OVERLAPS: " | ".join(f"{a!r} / {b!r}" for a, b in pairs)[:2000],
                PNG_KEY_TEXTS: json.dumps({"titles": figure_titles(fig), "texts": texts}, ensure_ascii=False)}
    except Exception:  # noqa: BLE001 - a figure without text, or a matplotlib change: show it, unmeasured
        meta = {}
    buf = io.BytesIO()
    fig.savefig(buf, format="png", bbox_inches="tight", dpi=fig.dpi, facecolor=fig.get_facecolor(),
                edgecolor=fig.get_edgecolor(), metadata=meta)
    return buf.getvalue()


def _figure_png_b64(fig):
    import base64

    if not fig.axes and not fig.lines:  # as IPython: an empty figure shows nothing
        return None
    return base64.b64encode(figure_png(fig)).decode("ascii")


def _show_figures_with_text_report() -> None:
    """Inside IPython, show matplotlib figures with :func:`figure_png` (text size and overlaps in the PNG)."""
    try:
        from IPython import get_ipython
    except ImportError:
        return
    shell = get_ipython()
    if shell is None:
        return
    from matplotlib.figure import Figure

    try:  # the inline backend registers its own PNG formatter when first imported: let it do so first
        import matplotlib_inline.backend_inline  # noqa: F401
    except ImportError:
        pass
    shell.display_formatter.formatters["image/png"].for_type(Figure, _figure_png_b64)
