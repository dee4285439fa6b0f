"""The source's reference measurements (A100-SXM4-40GB / PyTorch, TPU v5 lite / JAX, 2026-10-19) as data.

The numbers live in ``xpucalc/catalog/data/reference_runs.csv`` (milliseconds, TFLOP/s and
GB/s, as published); :func:`load` returns them as typed records in SI units.
:func:`table` renders them, :func:`plot_beside` draws a reader's own
:class:`~xpucalc.bench.BenchResult` list next to them.
"""
from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from .. import evidence
from ..catalog.store import read_text
from ..render.plot import COLUMN_WIDTH_IN
from ..render.table import Table
from ..units import GB, MS, TFLOPS, US
from ..core.workload import LinearLayer, linear_layer

#: Columns of reference_runs.csv, in order.
COLUMNS: tuple[str, ...] = (
    "device", "device_key", "framework", "framework_version", "runtime", "path", "precision", "m", "k", "n",
    "intensity_flop_per_byte", "first_call_ms", "device_ms", "with_transfer_ms", "achieved_tflops",
    "effective_gbps", "max_abs_err", "passed", "date", "source",
)

#: The timing boundaries a plot can show: field of ReferenceRun / BenchResult, Korean name.
BOUNDARIES: dict[str, str] = {
    "device": "장치 상주, 호출 1회 중앙값",
    "with_transfer": "전송 포함, 호출 1회 중앙값",
    "first_call": "최초 1회 (컴파일·초기화 포함)",
}

_PATH_LABELS = {("torch", "eager"): "PyTorch Eager", ("torch", "compiled"): "torch.compile",
                ("jax", "eager"): "JAX Eager", ("jax", "compiled"): "jax.jit (XLA)"}


@dataclass(frozen=True)
class ReferenceRun:
    """One row of the reference measurements, in SI units.

    Attributes:
        device: device name as the runtime reported it (``"NVIDIA A100-SXM4-40GB"``, ``"TPU v5 lite"``).
        device_key: spec-catalog key of that device (``"a100-sxm4-40gb"``, ``"tpu-v5e"``).
        framework, framework_version, runtime: software of the run.
        path: ``"eager"`` or ``"compiled"``; precision: ``"fp32"`` or ``"bf16"``.
        m, k, n: X [m, k], W [k, n].
        intensity: published arithmetic intensity, FLOP/byte (rounded to 2 decimals).
        first_call_s, device_s, with_transfer_s: the three boundaries, seconds (medians for the last two).
        achieved_flops: published throughput, FLOP/s. effective_bandwidth: published Q_min / time, bytes/s.
        max_abs_err: max abs(Y - Y_ref(float64)); passed: the run's verdict.
        date: ISO date of the measurement; source: where the row comes from.
    """

    device: str
    device_key: str
    framework: str
    framework_version: str
    runtime: str
    path: str
    precision: str
    m: int
    k: int
    n: int
    intensity: float
    first_call_s: float
    device_s: float
    with_transfer_s: float
    achieved_flops: float
    effective_bandwidth: float
    max_abs_err: float
    passed: bool
    date: str
    source: str

    @property
    def evidence(self) -> str:
        """Always ``실측``: measured on the named device, with date and software."""
        return evidence.MEASURED

    @property
    def workload(self) -> LinearLayer:
        return linear_layer(self.m, self.k, self.n, 4 if self.precision == "fp32" else 2)

    @property
    def path_label(self) -> str:
        return _PATH_LABELS.get((self.framework, self.path), self.path)

    def key(self) -> tuple[str, str, int]:
        """(path, precision, m): how reference rows line up with a reader's results."""
        return (self.path, self.precision, self.m)

    def time_s(self, boundary: str) -> float:
        """Time of ``boundary`` (``"device"``, ``"with_transfer"``, ``"first_call"``), seconds."""
        return {"device": self.device_s, "with_transfer": self.with_transfer_s,
                "first_call": self.first_call_s}[_boundary(boundary)]


def _boundary(boundary: str) -> str:
    if boundary not in BOUNDARIES:
        raise ValueError(f"boundary must be one of {', '.join(BOUNDARIES)}, got {boundary!r}")
    return boundary


def _parse(row: dict[str, str], line: int) -> ReferenceRun:
    try:
        passed = row["passed"].strip().lower()
        if passed not in ("true", "false"):
            raise ValueError(f"passed must be true or false, got {row['passed']!r}")
        return ReferenceRun(
            device=row["device"], device_key=row["device_key"], framework=row["framework"],
            framework_version=row["framework_version"], runtime=row["runtime"], path=row["path"],
            precision=row["precision"], m=int(row["m"]), k=int(row["k"]), n=int(row["n"]),
            intensity=float(row["intensity_flop_per_byte"]), first_call_s=float(row["first_call_ms"]) * MS,
            device_s=float(row["device_ms"]) * MS, with_transfer_s=float(row["with_transfer_ms"]) * MS,
            achieved_flops=float(row["achieved_tflops"]) * TFLOPS,
            effective_bandwidth=float(row["effective_gbps"]) * GB, max_abs_err=float(row["max_abs_err"]),
            passed=passed == "true", date=row["date"], source=row["source"])
    except (KeyError, ValueError) as exc:
        raise ValueError(f"reference_runs.csv line {line}: {exc}") from None


@lru_cache(maxsize=None)
def _all() -> tuple[ReferenceRun, ...]:
    text = read_text("reference_runs.csv")
    reader = csv.DictReader(io.StringIO(text))
    if tuple(reader.fieldnames or ()) != COLUMNS:
        raise ValueError(f"reference_runs.csv columns {reader.fieldnames} differ from {list(COLUMNS)}")
    return tuple(_parse(row, i + 2) for i, row in enumerate(reader))


def load(device_key: str | None = None, framework: str | None = None) -> list[ReferenceRun]:
    """Reference runs, optionally only those of ``device_key`` and/or ``framework``.

    Raises KeyError naming the known values when a filter matches nothing.
    """
    runs = list(_all())
    if device_key is not None:
        known = sorted({r.device_key for r in runs})
        if device_key not in known:
            raise KeyError(f"device_key {device_key!r} has no reference runs; known: {', '.join(known)}")
        runs = [r for r in runs if r.device_key == device_key]
    if framework is not None:
        known = sorted({r.framework for r in _all()})
        if framework not in known:
            raise KeyError(f"framework {framework!r} has no reference runs; known: {', '.join(known)}")
        runs = [r for r in runs if r.framework == framework]
    return runs


def get(device_key: str, path: str, precision: str, m: int) -> ReferenceRun:
    """The single reference run of ``device_key`` for (path, precision, m); KeyError if none."""
    for r in load(device_key):
        if r.key() == (path, precision, m):
            return r
    raise KeyError(f"no reference run for {device_key!r} path={path!r} precision={precision!r} m={m!r}")


TABLE_HEADERS = ["장치", "실행 경로", "정밀도", "M", "산술 강도 I (FLOP/B)", "최초 1회 (ms)",
                 "장치 상주, 호출 1회 중앙값 (ms)", "전송 포함, 호출 1회 중앙값 (ms)", "F / 호출 1회 시간 (TFLOP/s)",
                 "Q_min / 호출 1회 시간 (GB/s)", "최대 절대 오차 (판정)", "근거"]


def table(runs: Sequence[ReferenceRun] | None = None, caption: str = "") -> Table:
    """The reference runs as a Table (milliseconds for display), with software, date and source as notes."""
    runs = load() if runs is None else list(runs)
    t = Table(list(TABLE_HEADERS), caption=caption)
    for r in runs:
        t.add(r.device, r.path_label, r.precision.upper(), r.m, f"{r.intensity:.2f}", f"{r.first_call_s / MS:,.3f}",
              f"{r.device_s / MS:.4f}", f"{r.with_transfer_s / MS:.4f}", f"{r.achieved_flops / TFLOPS:.3f}",
              f"{r.effective_bandwidth / GB:.1f}", f"{r.max_abs_err:.2e} ({'통과' if r.passed else '실패'})",
              r.evidence)
    seen: list[str] = []
    for r in runs:
        note = (f"{r.device}: {r.framework} {r.framework_version}, {r.runtime}, 측정일 {r.date}, "
                f"출처 {r.source}")
        if note not in seen:
            seen.append(note)
    seen.append("'호출 1회'는 호출마다 끝날 때까지 기다린 한 번의 시간입니다(CUDA 이벤트 + 동기화, block_until_ready). "
                "파이썬 디스패치와 커널 실행 시작 비용이 들어 있어 커널 시간이 아닙니다.")
    t.notes = seen
    return t


def _group_label(key: tuple[str, str, int], framework: str) -> str:
    path, precision, m = key
    name = _PATH_LABELS.get((framework, path), path)
    return f"{name}\n{precision.upper()}, M={m}"


def plot_beside(results: Sequence[Any], reference_runs: Sequence[ReferenceRun], boundary: str = "device",
                ax: Any = None, title: str | None = None, mine_label: str | None = None) -> Any:
    """Grouped bars (log scale, ms) of a reader's results next to the reference runs.

    Args:
        results: :class:`~xpucalc.bench.BenchResult` objects (unsupported ones are marked "미지원").
        reference_runs: reference rows to compare with, usually ``load("a100-sxm4-40gb")``.
        boundary: ``"device"``, ``"with_transfer"`` or ``"first_call"``.
        ax: matplotlib axes (new figure if None).
        title: axes title (Korean default).
        mine_label: legend label of the reader's bars (default: device label + evidence).

    Returns:
        the matplotlib axes. Groups follow the reference's (path, precision, M) order,
        followed by any of the reader's keys the reference lacks.
    """
    import matplotlib.pyplot as plt
    import numpy as np
    from matplotlib.ticker import FuncFormatter, NullFormatter

    from ..render.plot import setup_korean_font

    _boundary(boundary)
    if not reference_runs:
        raise ValueError("reference_runs must hold at least one ReferenceRun")
    setup_korean_font()
    if ax is None:
        _, ax = plt.subplots(figsize=(COLUMN_WIDTH_IN, 5.0))
    ref_by_key = {r.key(): r for r in reference_runs}
    mine_by_key = {r.key(): r for r in results}
    keys = list(ref_by_key) + [k for k in mine_by_key if k not in ref_by_key]
    framework = reference_runs[0].framework
    x = np.arange(len(keys))
    width = 0.38

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
    ax.bar(x - width / 2, ref_vals, width, color="#4C72B0",
           label=f"{ref0.device} ({ref0.framework} {ref0.framework_version}, {ref0.date}, {ref0.evidence})")
    if mine_label is None:
        envs = [r.environment for r in results if getattr(r, "environment", None) is not None]
        mine_label = (f"내 실행: {envs[0].label()} ({envs[0].framework} {envs[0].framework_version}, "
                      f"{envs[0].date}, {envs[0].evidence})") if envs else "내 실행"
    ax.bar(x + width / 2, mine_vals, width, color="#DD8452", label=mine_label)
    ax.set_yscale("log")
    # plain decimal tick labels ("0.1", "10"): readable, and no mathtext minus sign that the Korean font lacks
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    ax.yaxis.set_minor_formatter(NullFormatter())
    finite = [v for v in ref_vals + mine_vals if np.isfinite(v) and v > 0]
    lo = min(finite) if finite else 1e-3
    hi = max(finite) if finite else 1.0
    ax.set_ylim(lo / 2, hi * 15)  # headroom above the bars for the legend
    for i, (k, v) in enumerate(zip(keys, mine_vals)):
        if not np.isfinite(v):
            reason = "미지원" if k in mine_by_key else "미실행"
            ax.text(x[i] + width / 2, lo, reason, ha="center", va="bottom", fontsize=9.5, rotation=90, color="crimson")
    ax.set_xticks(x)
    ax.set_xticklabels([_group_label(k, framework) for k in keys], fontsize=9.5)
    ax.set_ylabel("시간 (ms, 로그 축)")
    ax.set_title(title or f"{BOUNDARIES[boundary]}: 내 실행과 기준 실측 비교")
    ax.grid(True, axis="y", which="both", alpha=0.3)
    ax.legend(fontsize=9.5, loc="upper left")
    return ax


# --------------------------------------------------------------------------- measured vs roofline floor

@dataclass(frozen=True)
class FloorGap:
    """A reference run beside its roofline floor on the same device's spec sheet.

    Attributes:
        run: the reference run.
        floor_s: roofline time max(F / peak, Q_min / bandwidth) with the catalog's dense peak of the
            run's precision and its memory bandwidth, seconds; None when the catalog has no such peak.
        bound: ``"memory"`` or ``"compute"`` (which term sets the floor); None with ``floor_s``.
        bandwidth: the catalog's memory bandwidth of the device, bytes/s (None with ``floor_s``).
        reason: why there is no floor (the catalog's message), else ``""``.
    """

    run: ReferenceRun
    floor_s: float | None
    bound: str | None
    bandwidth: float | None = None
    reason: str = ""

    @property
    def gap(self) -> float | None:
        """Measured per-call time / floor (how many floors the measurement is); None without a floor."""
        return self.run.device_s / self.floor_s if self.floor_s else None

    @property
    def bandwidth_share(self) -> float | None:
        """Q_min / measured time as a share of the spec bandwidth (0..1); None without a floor."""
        if self.bandwidth is None:
            return None
        return self.run.workload.bytes / self.run.device_s / self.bandwidth


def floor_gap(run: ReferenceRun) -> FloorGap:
    """The roofline floor of ``run``'s workload on its device (catalog peak of its precision, dense)."""
    from ..catalog import devices
    from ..core.roofline import roofline

    try:
        dev = devices.get(run.device_key, precision=run.precision)
    except (KeyError, ValueError) as exc:
        return FloorGap(run, None, None, None, str(exc))
    r = roofline(run.workload, dev)
    return FloorGap(run, r.time, r.bound, dev.bandwidth)


def floor_gaps(runs: Sequence[ReferenceRun] | None = None) -> list[FloorGap]:
    """:func:`floor_gap` of every run (default: all reference runs)."""
    return [floor_gap(r) for r in (load() if runs is None else runs)]


FLOOR_HEADERS = ["장치 · 경로", "정밀도, M", "잰 값: 호출 1회 중앙값 (µs)", "루프라인 하한 (µs)", "잰 값 / 하한 (배)",
                 "하한을 정한 항", "Q_min / 잰 값 ÷ 사양 대역폭", "근거"]

#: Short device names for narrow tables and plot labels.
SHORT_NAMES: dict[str, str] = {"a100-sxm4-40gb": "A100", "tpu-v5e": "TPU v5e"}


def floor_table(runs: Sequence[ReferenceRun] | None = None, caption: str = "") -> Table:
    """Measured per-call time beside the roofline floor and the gap, one row per run (µs)."""
    t = Table(list(FLOOR_HEADERS), caption=caption)
    for fg in floor_gaps(runs):
        r = fg.run
        head = [f"{SHORT_NAMES.get(r.device_key, r.device)} · {r.path_label}", f"{r.precision.upper()}, M={r.m}",
                f"{r.device_s / US:,.1f}"]
        if fg.floor_s is None:
            t.add(*head, "카탈로그에 없음", "—", "—", "—", r.evidence)
            continue
        share = fg.bandwidth_share
        t.add(*head, f"{fg.floor_s / US:,.2f}", f"{fg.gap:,.0f}", "메모리" if fg.bound == "memory" else "연산",
              "—" if share is None else f"{share:.1%}", f"{r.evidence} / {evidence.COMPUTED}")
    t.notes = ["하한 = max(F / 최대 연산 성능, Q_min / 메모리 대역폭), 카탈로그의 해당 정밀도 밀집(dense) 최대 성능과 "
               "대역폭으로 계산(분석 계산). 잰 값은 원자료의 장치 상주 중앙값(호출 1회, 실측).",
               "TPU v5e는 카탈로그에 FP32 최대 성능이 없어 FP32 행의 하한을 계산하지 않습니다."]
    return t


def plot_floor(runs: Sequence[ReferenceRun] | None = None, precision: str = "bf16", ax: Any = None) -> Any:
    """Bars (log scale, µs) of the measured per-call time and the roofline floor for ``precision``'s runs.

    Returns the matplotlib axes. One group per (device, path, M); the floor bars carry their value,
    the measured bars the gap ("37배").
    """
    import matplotlib.pyplot as plt
    import numpy as np
    from matplotlib.ticker import FuncFormatter, NullFormatter

    from ..render.plot import setup_korean_font

    setup_korean_font()
    gaps = [fg for fg in floor_gaps(runs) if fg.run.precision == precision and fg.floor_s is not None]
    if not gaps:
        raise ValueError(f"precision {precision!r}: no reference run with a roofline floor; use 'bf16' or 'fp32'")
    if ax is None:
        _, ax = plt.subplots(figsize=(COLUMN_WIDTH_IN, 5.0))
    x = np.arange(len(gaps))
    width = 0.38
    measured = [fg.run.device_s / US for fg in gaps]
    floors = [fg.floor_s / US for fg in gaps]
    b1 = ax.bar(x - width / 2, measured, width, color="#4C72B0", label="잰 값: 호출 1회 중앙값 (실측)")
    b2 = ax.bar(x + width / 2, floors, width, color="#55A868", label="루프라인 하한 (분석 계산)")
    ax.bar_label(b1, labels=[f"{fg.gap:,.0f}배" for fg in gaps], fontsize=9, padding=1)
    ax.bar_label(b2, labels=[f"{v:.2f}" for v in floors], fontsize=9, padding=1)
    ax.set_yscale("log")
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    ax.yaxis.set_minor_formatter(NullFormatter())
    ax.set_ylim(min(floors) / 2, max(measured) * 6)
    ax.set_xticks(x)
    ax.set_xticklabels([f"{SHORT_NAMES.get(fg.run.device_key, fg.run.device)}\n{fg.run.path_label}\nM={fg.run.m}"
                        for fg in gaps], fontsize=9.5)
    ax.set_ylabel("시간 (µs, 로그 축)")
    ax.set_title(f"{precision.upper()}: 잰 시간과 루프라인 하한")
    ax.grid(True, axis="y", which="both", alpha=0.3)
    ax.legend(fontsize=9.5, loc="upper right")
    return ax


def transfer_ratios(run: ReferenceRun) -> tuple[float, float]:
    """(total / device, extra / device) of a run's with-copies time: the two like-for-like transfer readings."""
    return run.with_transfer_s / run.device_s, (run.with_transfer_s - run.device_s) / run.device_s


def throughput_drop(big: ReferenceRun, small: ReferenceRun) -> float:
    """How many times lower the throughput F / time of ``small`` is than ``big``'s, from the times (not the
    rounded published throughputs): (F_big / t_big) / (F_small / t_small)."""
    return (big.workload.flops / big.device_s) / (small.workload.flops / small.device_s)


__all__ = ["BOUNDARIES", "COLUMNS", "FLOOR_HEADERS", "FloorGap", "ReferenceRun", "SHORT_NAMES", "TABLE_HEADERS", "floor_gap",
           "floor_gaps", "floor_table", "get", "load", "plot_beside", "plot_floor", "table", "throughput_drop",
           "transfer_ratios"]
