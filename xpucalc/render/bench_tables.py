"""Tables of measurements for a phone-sized column: a reader's results, the reference runs and their floors.

A lab's results come from one run: one device, one framework version, one date and (usually) one
evidence label. :func:`results_table` says those once in a line above two narrow tables (the three
measurement boundaries; rate and accuracy), and :func:`gpu_table` folds L2 warm/cold pairs into one
cell. :data:`RESULT_HEADERS` and :func:`result_row` keep the flat one-row-per-condition record.
:func:`reference_table` shows the source's reference runs, :func:`floor_table` each beside its roofline
floor (``xpucalc.bench.reference.floor_gap``). Everything here formats numbers it is given.
"""
from __future__ import annotations

import html
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from .. import evidence
from ..bench.reference import ReferenceRun, floor_gaps, load
from ..bench.results import BenchResult
from ..bench.timing import Timing
from ..units import GB, MS, TFLOPS, US
from .table import Table

#: The flat record of one condition (every column; see :func:`result_row`).
RESULT_HEADERS = ["실행 경로", "정밀도", "M", "산술 강도 I (FLOP/B)", "최초 1회 (ms)", "장치 상주 중앙값 (ms)",
                  "장치 상주 최소 · p10 (ms)", "IQR/중앙값", "전송 포함 중앙값 (ms)", "전송 포함/장치 상주", "처리율 (TFLOP/s)",
                  "유효 대역폭 (GB/s)", "최대 절대 오차 (판정)", "재컴파일", "장치", "근거"]

#: Columns of the two tables :func:`results_table` shows.
TIME_HEADERS = ["조건", "최초 1회 (ms)", "장치 상주 (ms)", "전송 포함 (ms)", "전송 포함/장치 상주"]
TIME_CAPTION = "시간: 세 경계 (반복한 두 경계는 중앙값, 괄호 안은 IQR/중앙값과 표시)"
RATE_HEADERS = ["조건", "산술 강도 I (FLOP/B)", "장치 상주 최소 · p10 (ms)", "처리율 (TFLOP/s)", "유효 대역폭 (GB/s)",
                "최대 절대 오차 (판정)"]

#: Columns of :func:`gpu_table` (µs per call; "웜 / 콜드" cells hold the L2-warm and the L2-cold number).
GPU_HEADERS = ["조건", "호출 1회 (µs) L2 웜 / 콜드", "연속 호출 (µs/회)", "커널: CUDA 그래프 (µs/회) L2 웜 / 콜드",
               "호출 1회, 호스트 시계 (µs)", "전송 포함 pageable (µs)", "전송 포함 pinned (µs)"]


def _ms(seconds: float | None, digits: int = 4) -> str:
    return "—" if seconds is None else f"{seconds / MS:,.{digits}f}"


def _us(seconds: float | None) -> str:
    return "—" if seconds is None else f"{seconds / US:,.1f}"


def condition_label(r: BenchResult) -> str:
    """Short row label: path, precision and M, e.g. ``"Eager · BF16 · M=128"`` (the framework is in the line above)."""
    path = "Eager" if r.path == "eager" else r.path_label.split(" (")[0]  # "jax.jit (XLA)" -> "jax.jit"
    return f"{path} · {r.precision.upper()} · M={r.m}"


def result_row(r: BenchResult) -> list[str]:
    """The flat record of one condition (Korean headers in ``RESULT_HEADERS``), every column in one row.

    On a GPU the device-resident column is the per-call latency; :func:`gpu_table`
    shows it beside the back-to-back and kernel times.
    """
    head = [r.path_label, r.precision.upper(), str(r.m), f"{r.workload.intensity:.2f}"]
    if not r.ok:
        dev = r.environment.label() if r.environment else "—"
        return head + ["미지원", "—", "—", "—", "—", "—", "—", "—", f"미지원: {r.reason}", "—", dev, r.evidence]
    assert r.device is not None and r.with_transfer is not None and r.accuracy is not None
    recompiles = "해당 없음" if r.recompiles is None else f"{r.recompiles}회"
    ratio = r.transfer_ratio
    return head + [_ms(r.first_call_s, 3), _ms(r.device.median_s),
                   f"{_ms(r.device.min_s)} · {_ms(r.device.p10_s)}", r.device.spread_label(),
                   _ms(r.with_transfer.median_s), "—" if ratio is None else f"{ratio:.2f}",
                   f"{(r.achieved_flops or 0) / TFLOPS:.3f}", f"{(r.effective_bandwidth or 0) / GB:.1f}",
                   f"{r.accuracy.max_abs_err:.2e} ({r.accuracy.verdict})", recompiles,
                   r.environment.label() if r.environment else "—", r.evidence]


@dataclass
class ResultTables:
    """A line of what every row shares, one or more narrow :class:`~xpucalc.render.table.Table` s, then notes.

    Attributes:
        caption: title shown above everything.
        line: what is the same for every row (device, framework and version, date, evidence, ...).
        tables: the tables, each with its own short caption.
        notes: remarks shown under the last table.
    """

    caption: str
    line: str
    tables: list[Table]
    notes: list[str] = field(default_factory=list)

    def table(self, caption_start: str) -> Table:
        """The table whose caption starts with ``caption_start``."""
        for t in self.tables:
            if t.caption.startswith(caption_start):
                return t
        raise KeyError(f"no table caption starts with {caption_start!r}; captions: {[t.caption for t in self.tables]}")

    def to_html(self) -> str:
        """The caption and the line above the tables' own HTML, the notes below."""
        e = html.escape
        cap = f"<p class='xpucalc-caption'>{e(self.caption)}</p>" if self.caption else ""
        notes = ("<ul class='xpucalc-notes'>" + "".join(f"<li>{e(n)}</li>" for n in self.notes) + "</ul>"
                 if self.notes else "")
        return (f"<div class='xpucalc-results'>{cap}<p class='xpucalc-line'>{e(self.line)}</p>"
                + "".join(t.to_html() for t in self.tables) + notes + "</div>")

    def to_markdown(self) -> str:
        """The same as Markdown (caption in bold, the line, each table, the notes as a list)."""
        parts = ([f"**{self.caption}**", ""] if self.caption else []) + [self.line, ""]
        parts += [t.to_markdown() + "\n" for t in self.tables]
        parts += [f"- {n}" for n in self.notes]
        return "\n".join(parts)

    def _repr_html_(self) -> str:
        return self.to_html()

    def _repr_markdown_(self) -> str:
        return self.to_markdown()

    def __repr__(self) -> str:  # what a plain-text front end shows: the Markdown, not a dataclass dump
        return self.to_markdown()

    __str__ = __repr__


def _shared_line(results: Sequence[BenchResult], shared_evidence: str | None) -> str:
    """Device, framework version, runtime, threads, Python, date (and the evidence when every row has the same)."""
    envs = sorted({r.environment for r in results if r.environment is not None}, key=lambda e: e.label())
    parts = []
    for env in envs:
        threads = f", CPU 스레드 {env.threads}" if env.threads is not None else ""
        parts.append(f"장치: {env.label()} · {env.framework} {env.framework_version}"
                     f"{', ' + env.runtime if env.runtime else ''}{threads}, Python {env.python} · {env.date}")
    if not parts:
        parts.append("장치: 없음 (실행하지 못함)")
    if shared_evidence is not None:
        parts.append(f"근거: {shared_evidence}")
    return " · ".join(parts)


def _notes(results: Sequence[BenchResult]) -> list[str]:
    notes: list[str] = []
    for r in results:
        for note in r.notes:
            if note not in notes:
                notes.append(note)
    reps = {(r.warmup, r.reps, r.rounds) for r in results if r.ok}
    if reps:
        notes.append("반복(워밍업 최소 횟수 + 측정 횟수, 라운드): "
                     + ", ".join(f"{w} + {n}, 라운드 {k}번" for w, n, k in sorted(reps)))
    setups = {round(r.setup_s, 4) for r in results if r.ok and r.setup_s is not None}
    if setups:
        notes.append("프로세스 1회 준비(런타임 시작, 첫 커널)는 따로 쟀고 '최초 1회'에 넣지 않았습니다: "
                     + ", ".join(f"{s / MS:.1f} ms" for s in sorted(setups)))
    compiled = [r for r in results if r.ok and r.recompiles is not None]
    if compiled:
        if all(r.recompiles == 0 for r in compiled):
            notes.append(f"재컴파일: 컴파일 경로의 {len(compiled)}개 조건 모두 0회")
        else:
            notes.append("재컴파일: " + ", ".join(f"{condition_label(r)} {r.recompiles}회" for r in compiled))
    return notes


def _with_spread(t: Timing) -> str:
    """Median in ms with IQR/median and the flags in one cell, e.g. ``"3.7437 (28%, 불안정)"``."""
    flags = [f for f, on in (("불안정", t.noisy), ("두 무리", t.bimodal)) if on]
    return f"{_ms(t.median_s)} ({', '.join([f'{t.rel_iqr:.0%}', *flags])})"


def results_table(results: Sequence[BenchResult], caption: str = "") -> ResultTables:
    """The results for reading on a phone: a shared line, a table of the three boundaries, a table of rate and accuracy.

    The line says once what every row shares (device, framework version, date, evidence); when
    the rows' evidence differs (an unsupported cell), the rate table gets a "근거" column instead.
    Steady-state cells hold the median with its IQR/median and flags, e.g. ``"3.7437 (28%, 불안정)"``.
    """
    labels = {r.evidence for r in results}
    shared = labels.pop() if len(labels) == 1 else None
    envs = {r.environment.label() for r in results if r.environment is not None}
    times = Table(list(TIME_HEADERS), caption=TIME_CAPTION)
    rates = Table(list(RATE_HEADERS) + (["장치"] if len(envs) > 1 else []) + ([] if shared else ["근거"]),
                  caption="처리율과 정확도 (장치 상주 중앙값 기준)")
    for r in results:
        label = condition_label(r)
        extra = ([r.environment.label() if r.environment else "—"] if len(envs) > 1 else []) + \
            ([] if shared else [r.evidence])
        if not r.ok:
            times.add(label, f"미지원: {r.reason}", "—", "—", "—")
            rates.add(label, f"{r.workload.intensity:.2f}", "—", "—", "—", "—", *extra)
            continue
        assert r.device is not None and r.with_transfer is not None and r.accuracy is not None
        ratio = r.transfer_ratio
        times.add(label, _ms(r.first_call_s, 3), _with_spread(r.device), _with_spread(r.with_transfer),
                  "—" if ratio is None else f"{ratio:.2f}")
        rates.add(label, f"{r.workload.intensity:.2f}", f"{_ms(r.device.min_s)} · {_ms(r.device.p10_s)}",
                  f"{(r.achieved_flops or 0) / TFLOPS:.3f}", f"{(r.effective_bandwidth or 0) / GB:.1f}",
                  f"{r.accuracy.max_abs_err:.2e} ({r.accuracy.verdict})", *extra)
    return ResultTables(caption, _shared_line(results, shared), [times, rates], _notes(results))


def gpu_row(r: BenchResult) -> list[str]:
    """One row of :data:`GPU_HEADERS` (µs per call); "—" where a number was not measured."""
    g = r.gpu
    if not r.ok or g is None:
        return [condition_label(r)] + ["—"] * (len(GPU_HEADERS) - 1)

    def med(t: Timing | None) -> str:
        return _us(getattr(t, "median_s", None))

    return [condition_label(r), f"{med(g.per_call)} / {med(g.per_call_l2_cold)}", med(g.back_to_back),
            f"{med(g.kernel)} / {med(g.kernel_l2_cold)}", med(g.per_call_host), med(r.with_transfer),
            med(r.with_transfer_pinned)]


def gpu_table(results: Sequence[BenchResult], caption: str = "") -> ResultTables:
    """The three GPU numbers per condition (per call, back to back, kernel), L2 warm / cold in one cell, copies.

    The clock (CUDA events or the host's) and the evidence are the same for a run's rows and stand in the line.
    """
    labels = {r.evidence for r in results}
    shared = labels.pop() if len(labels) == 1 else None
    clocks = sorted({"CUDA 이벤트" if r.gpu.clock == "cuda-event" else "호스트" for r in results if r.gpu is not None})
    t = Table(list(GPU_HEADERS) + ([] if shared else ["근거"]), caption="장치 상주 시간의 세 숫자 (µs/회)")
    for r in results:
        t.add(*gpu_row(r), *([] if shared else [r.evidence]))
    line = _shared_line(results, shared) + (f" · 시계: {', '.join(clocks)}" if clocks else "")
    return ResultTables(caption, line, [t], _notes(results))


# --------------------------------------------------------------------------- the reference runs

#: Columns of :func:`reference_table`.
REFERENCE_HEADERS = ["장치", "실행 경로", "정밀도", "M", "산술 강도 I (FLOP/B)", "최초 1회 (ms)",
                     "장치 상주, 호출 1회 중앙값 (ms)", "전송 포함, 호출 1회 중앙값 (ms)", "F / 호출 1회 시간 (TFLOP/s)",
                     "Q_min / 호출 1회 시간 (GB/s)", "최대 절대 오차 (판정)", "근거"]


def source_title(source: str) -> str:
    """A reference run's source id as a reader reads it: 'week05-s11.3' -> '5주차 교안 §11.3의 실행 기록'."""
    m = re.fullmatch(r"week(\d+)-s([\d.]+)", source)
    return f"{int(m.group(1))}주차 교안 §{m.group(2)}의 실행 기록" if m else source


def reference_table(runs: Sequence[ReferenceRun] | None = None, caption: str = "") -> Table:
    """The reference runs (default: all) as a Table (milliseconds for display), with software, date and source as notes."""
    runs = load() if runs is None else list(runs)
    t = Table(list(REFERENCE_HEADERS), caption=caption)
    for r in runs:
        t.add(r.device, r.path_label, r.precision.upper(), r.m, f"{r.intensity:.2f}", f"{r.first_call_s / MS:,.3f}",
              f"{r.device_s / MS:.4f}", f"{r.with_transfer_s / MS:.4f}", f"{r.achieved_flops / TFLOPS:.3f}",
              f"{r.effective_bandwidth / GB:.1f}", f"{r.max_abs_err:.2e} ({'통과' if r.passed else '실패'})",
              r.evidence)
    seen: list[str] = []
    for r in runs:
        note = (f"{r.device}: {r.framework} {r.framework_version}, {r.runtime}, 측정일 {r.date}, "
                f"출처 {source_title(r.source)}")
        if note not in seen:
            seen.append(note)
    seen.append("'호출 1회'는 호출마다 끝날 때까지 기다린 한 번의 시간입니다(CUDA 이벤트 + 동기화, block_until_ready). "
                "파이썬 디스패치와 커널 실행 시작 비용이 들어 있어 커널 시간이 아닙니다.")
    t.notes = seen
    return t


#: Columns of :func:`floor_table`.
FLOOR_HEADERS = ["장치 · 경로", "정밀도, M", "잰 값: 호출 1회 중앙값 (µs)", "루프라인 하한 (µs)", "잰 값 / 하한 (배)",
                 "하한을 정한 항", "Q_min / 잰 값 ÷ 사양 대역폭", "근거"]

#: Short device names for narrow tables and plot labels.
SHORT_NAMES: dict[str, str] = {"a100-sxm4-40gb": "A100", "tpu-v5e": "TPU v5e"}


def floor_table(runs: Sequence[ReferenceRun] | None = None, caption: str = "") -> Table:
    """Measured per-call time beside the roofline floor and the gap, one row per run (default: all), in µs."""
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
    measured_ev = evidence.weakest(fg.run.evidence for fg in floor_gaps(runs))
    t.notes = ["하한 = max(F / 최대 처리율, Q_min / 메모리 대역폭), 카탈로그의 해당 정밀도 dense 최대 처리율과 "
               f"대역폭으로 계산({evidence.COMPUTED}). 잰 값은 원자료의 장치 상주 중앙값(호출 1회, {measured_ev}).",
               "TPU v5e는 카탈로그에 FP32 최대 처리율이 없어 FP32 행의 하한을 계산하지 않습니다."]
    return t


__all__ = ["FLOOR_HEADERS", "GPU_HEADERS", "RATE_HEADERS", "REFERENCE_HEADERS", "RESULT_HEADERS", "ResultTables",
           "SHORT_NAMES", "TIME_HEADERS", "condition_label", "floor_table", "gpu_row", "gpu_table", "reference_table",
           "result_row", "results_table"]
