"""Tables of results: one row per condition, Korean headers that say what was measured."""
from __future__ import annotations

from collections.abc import Sequence

from ..table import Table
from ..units import GB, MS, TFLOPS, US
from .results import BenchResult

RESULT_HEADERS = ["실행 경로", "정밀도", "M", "산술 강도 I (FLOP/B)", "최초 1회 (ms)", "장치 상주 중앙값 (ms)",
                  "장치 상주 최소 · p10 (ms)", "IQR/중앙값", "전송 포함 중앙값 (ms)", "전송 포함/장치 상주", "처리율 (TFLOP/s)",
                  "유효 대역폭 (GB/s)", "최대 절대 오차 (판정)", "재컴파일", "장치", "근거"]

GPU_HEADERS = ["실행 경로", "정밀도", "M", "호출 1회 지연 (µs)", "연속 호출 (µs/회)", "커널: CUDA 그래프 (µs/회)",
               "호출 1회, L2 콜드 (µs)", "커널, L2 콜드 (µs)", "호출 1회, 호스트 시계 (µs)", "전송 포함 pageable (µs)",
               "전송 포함 pinned (µs)", "시계", "근거"]


def _ms(seconds: float | None, digits: int = 4) -> str:
    return "—" if seconds is None else f"{seconds / MS:,.{digits}f}"


def _us(seconds: float | None) -> str:
    return "—" if seconds is None else f"{seconds / US:,.1f}"


def result_row(r: BenchResult) -> list[str]:
    """One table row (Korean headers in ``RESULT_HEADERS``).

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


def _notes(results: Sequence[BenchResult]) -> list[str]:
    notes: list[str] = []
    for r in results:
        for note in r.notes:
            if note not in notes:
                notes.append(note)
    envs = {r.environment for r in results if r.environment is not None}
    for env in sorted(envs, key=lambda e: e.label()):
        threads = f", CPU 스레드 {env.threads}" if env.threads is not None else ""
        notes.append(f"{env.label()}: {env.framework} {env.framework_version}"
                     f"{', ' + env.runtime if env.runtime else ''}{threads}, Python {env.python}, {env.date}, "
                     f"근거: {env.evidence}")
    reps = {(r.warmup, r.reps, r.rounds) for r in results if r.ok}
    if reps:
        notes.append("반복(워밍업 최소 횟수 + 측정 횟수, 라운드): "
                     + ", ".join(f"{w} + {n}, 라운드 {k}번" for w, n, k in sorted(reps)))
    setups = {round(r.setup_s, 4) for r in results if r.ok and r.setup_s is not None}
    if setups:
        notes.append("프로세스 1회 준비(런타임 시작, 첫 커널)는 따로 쟀고 '최초 1회'에 넣지 않았습니다: "
                     + ", ".join(f"{s / MS:.1f} ms" for s in sorted(setups)))
    return notes


def results_table(results: Sequence[BenchResult], caption: str = "") -> Table:
    """Render results as an xpucalc :class:`~xpucalc.table.Table` with an evidence column and notes."""
    t = Table(list(RESULT_HEADERS), caption=caption)
    for r in results:
        t.add(*result_row(r))
    t.notes = _notes(results)
    return t


def gpu_row(r: BenchResult) -> list[str]:
    """One row of :data:`GPU_HEADERS` (µs per call); "—" where a number was not measured."""
    head = [r.path_label, r.precision.upper(), str(r.m)]
    g = r.gpu
    if not r.ok or g is None:
        return head + ["—"] * (len(GPU_HEADERS) - 4) + [r.evidence]

    def med(t: object) -> float | None:
        return getattr(t, "median_s", None)

    return head + [_us(med(g.per_call)), _us(med(g.back_to_back)), _us(med(g.kernel)), _us(med(g.per_call_l2_cold)),
                   _us(med(g.kernel_l2_cold)), _us(med(g.per_call_host)), _us(med(r.with_transfer)),
                   _us(med(r.with_transfer_pinned)), "CUDA 이벤트" if g.clock == "cuda-event" else "호스트",
                   r.evidence]


def gpu_table(results: Sequence[BenchResult], caption: str = "") -> Table:
    """The three GPU numbers per condition (per call, back to back, kernel), L2 warm and cold, copies."""
    t = Table(list(GPU_HEADERS), caption=caption)
    for r in results:
        t.add(*gpu_row(r))
    t.notes = _notes(results)
    return t


def timing_record(t: object) -> dict | None:
    """A :class:`~xpucalc.bench.Timing` as plain numbers (seconds), for JSON; None stays None."""
    if t is None:
        return None
    return {"median_s": t.median_s, "min_s": t.min_s, "p10_s": t.p10_s, "q1_s": t.q1_s, "q3_s": t.q3_s,
            "n": t.n, "noisy": t.noisy, "bimodal": t.bimodal}


def result_record(r: BenchResult) -> dict:
    """One result as a JSON-ready dict: the condition, every timing (seconds), accuracy, environment, evidence."""
    env = r.environment
    g = r.gpu
    return {
        "framework": r.framework, "path": r.path, "precision": r.precision, "m": r.m, "k": r.k, "n": r.n,
        "status": r.status, "reason": r.reason, "evidence": r.evidence,
        "first_call_s": r.first_call_s, "first_call_cold_s": r.first_call_cold_s, "setup_s": r.setup_s,
        "compile_cache_hit": r.compile_cache_hit, "recompiles": r.recompiles, "cudagraph_skips": r.cudagraph_skips,
        "device": timing_record(r.device), "with_transfer": timing_record(r.with_transfer),
        "with_transfer_pinned": timing_record(r.with_transfer_pinned),
        "gpu": None if g is None else {
            "per_call": timing_record(g.per_call), "back_to_back": timing_record(g.back_to_back),
            "kernel": timing_record(g.kernel), "per_call_l2_cold": timing_record(g.per_call_l2_cold),
            "kernel_l2_cold": timing_record(g.kernel_l2_cold), "per_call_host": timing_record(g.per_call_host),
            "batch": g.batch, "flush_bytes": g.flush_bytes, "clock": g.clock},
        "accuracy_first": None if r.accuracy_first is None else r.accuracy_first.max_abs_err,
        "accuracy_last": None if r.accuracy_last is None else r.accuracy_last.max_abs_err,
        "accuracy_passed": None if r.accuracy is None else r.accuracy.passed,
        "settings": dict(r.settings), "warmup": r.warmup, "reps": r.reps, "rounds": r.rounds, "notes": list(r.notes),
        "environment": None if env is None else {
            "framework": env.framework, "framework_version": env.framework_version, "kind": env.kind,
            "name": env.name, "count": env.count, "device_index": env.device_index,
            "compute_capability": env.compute_capability, "l2_bytes": env.l2_bytes, "sm_clock_hz": env.sm_clock_hz,
            "sm_clock_max_hz": env.sm_clock_max_hz, "driver": env.driver, "runtime": env.runtime,
            "threads": env.threads, "python": env.python, "platform": env.platform, "date": env.date,
            "caveats": list(env.caveats()), "extra": dict(env.extra)},
    }


__all__ = ["GPU_HEADERS", "RESULT_HEADERS", "gpu_row", "gpu_table", "result_record", "result_row", "results_table",
           "timing_record"]
