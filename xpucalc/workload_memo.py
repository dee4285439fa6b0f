"""'My workload memo': does a model fit, how fast can it decode, how long does training take.

The reader describes the hardware and the job in one :class:`WorkloadInputs`
(SI units: bytes, bytes/s, FLOP/s; ``n_params`` is a count) and calls
:func:`estimate`, or calls :func:`memo` with keyword arguments: ``memo`` never raises
for bad input but returns a report whose message names the argument and the fix.

Every figure in the report is an idealised roofline estimate (분석 계산) built from
catalog figures or the reader's own numbers; none is a measurement.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field, fields

from . import devices, llm
from ._check import _as_float
from .evidence import COMPUTED
from .table import Table
from .units import fmt_bytes, fmt_num, fmt_si, fmt_time

#: Goals the memo understands, with their Korean names.
GOALS: dict[str, str] = {
    "serving": "추론 서빙",
    "lora": "LoRA 파인튜닝",
    "full_ft": "전체 파인튜닝 (full FT)",
    "training": "학습 예산 (토큰 수와 MFU)",
}

#: Bytes per parameter a reader may pick, with the format names they stand for.
PRECISION_NAMES: dict[float, str] = {4.0: "FP32", 2.0: "FP16/BF16", 1.0: "FP8/INT8", 0.5: "INT4/NF4"}


class MemoInputError(ValueError):
    """A bad input to the memo; the message is Korean and starts with the argument name."""

    def __init__(self, argument: str, message: str):
        self.argument = argument
        super().__init__(f"{argument}: {message}")


def _positive(value: object, name: str, what: str) -> float:
    try:
        x = _as_float(value, name)
    except ValueError:
        raise MemoInputError(name, f"{what} — 유한한 숫자여야 합니다. 받은 값: {value!r}") from None
    if x <= 0:
        raise MemoInputError(name, f"{what} — 0보다 커야 합니다. 받은 값: {value!r}")
    return x


def _count(value: object, name: str, what: str) -> int:
    try:
        x = _as_float(value, name)
    except ValueError:
        raise MemoInputError(name, f"{what} — 1 이상의 정수여야 합니다. 받은 값: {value!r}") from None
    if x < 1 or x != int(x):
        raise MemoInputError(name, f"{what} — 1 이상의 정수여야 합니다. 받은 값: {value!r}")
    return int(x)


@dataclass(frozen=True)
class WorkloadInputs:
    """One reader's hardware and job.

    Hardware: either ``gpu`` (a catalog key, see ``xpucalc.devices.keys()``) or, by hand,
    ``gpu_name`` + ``gpu_memory`` (bytes) + ``bandwidth`` (bytes/s) + ``peak_flops`` (dense FLOP/s).
    Hand-entered figures override the catalog's when both are given.

    Args:
        n_params: model parameters (count, 7e9 for a 7B model).
        bytes_per_param: bytes per weight (2 FP16/BF16, 1 FP8/INT8, 0.5 INT4).
        goal: one of :data:`GOALS` (``serving``, ``lora``, ``full_ft``, ``training``).
        gpu: catalog key, or None for hand-entered hardware.
        n_gpus: GPUs used together (>= 1).
        nvlink: the GPUs are joined by NVLink/NVSwitch.
        gpus_per_node: GPUs in one server (default: min(n_gpus, 8)).
        seq_len: tokens per sequence (prompt + output for serving).
        batch: sequences processed together.
        layers, kv_heads, head_dim: model shape for the KV cache (optional; without them the
            KV cache is left out and the report says so).
        kv_bytes: bytes per KV element (2 for FP16).
        train_tokens: training tokens for the time estimate (count).
        mfu: model FLOPs utilisation, a fraction in (0, 1].
        precision: catalog precision of the peak to use (``bf16``; ``fp16`` is tried next).
        is_moe: mixture-of-experts model (affects the parallelism suggestion).
    """

    n_params: float
    bytes_per_param: float = 2.0
    goal: str = "serving"
    gpu: str | None = None
    n_gpus: int = 1
    nvlink: bool = False
    gpus_per_node: int | None = None
    gpu_name: str | None = None
    gpu_memory: float | None = None
    bandwidth: float | None = None
    peak_flops: float | None = None
    seq_len: int = 4096
    batch: int = 1
    layers: int | None = None
    kv_heads: int | None = None
    head_dim: int | None = None
    kv_bytes: float = 2.0
    train_tokens: float | None = None
    mfu: float = 0.4
    precision: str = "bf16"
    is_moe: bool = False

    def __post_init__(self) -> None:
        _positive(self.n_params, "n_params", "모델 파라미터 수")
        _positive(self.bytes_per_param, "bytes_per_param", "파라미터당 바이트")
        if self.goal not in GOALS:
            raise MemoInputError("goal", f"목표는 {', '.join(GOALS)} 가운데 하나여야 합니다. 받은 값: {self.goal!r}")
        _count(self.n_gpus, "n_gpus", "GPU 수")
        if self.gpus_per_node is not None:
            _count(self.gpus_per_node, "gpus_per_node", "노드당 GPU 수")
        _count(self.seq_len, "seq_len", "시퀀스 길이")
        _count(self.batch, "batch", "배치 크기")
        _positive(self.kv_bytes, "kv_bytes", "KV 원소당 바이트")
        try:
            m = _as_float(self.mfu, "mfu")
        except ValueError:
            raise MemoInputError("mfu", f"MFU는 숫자여야 합니다. 받은 값: {self.mfu!r}") from None
        if not 0 < m <= 1:
            raise MemoInputError("mfu", f"MFU는 0보다 크고 1 이하인 비율입니다(40 %는 0.4로 적습니다). "
                                        f"받은 값: {self.mfu!r}. 1을 넘는 MFU는 피크보다 빠르다는 뜻이라 불가능합니다.")
        shape = (self.layers, self.kv_heads, self.head_dim)
        if any(v is not None for v in shape) and any(v is None for v in shape):
            raise MemoInputError("layers", "KV 캐시를 계산하려면 layers, kv_heads, head_dim 셋을 모두 적어야 합니다.")
        for name in ("layers", "kv_heads", "head_dim"):
            if getattr(self, name) is not None:
                _count(getattr(self, name), name, name)
        if self.train_tokens is not None:
            _positive(self.train_tokens, "train_tokens", "학습 토큰 수")
        if self.goal == "training" and self.train_tokens is None:
            raise MemoInputError("train_tokens", "목표가 training이면 학습 토큰 수(train_tokens)를 적어야 합니다.")
        if self.gpu is not None and self.gpu not in devices.keys():
            raise MemoInputError("gpu", f"카탈로그에 없는 키 {self.gpu!r}입니다. 쓸 수 있는 키: {', '.join(devices.keys())}. "
                                        "목록에 없으면 gpu=None으로 두고 gpu_name, gpu_memory, bandwidth, "
                                        "peak_flops를 직접 적으세요.")
        if self.gpu is None:
            missing = [n for n in ("gpu_memory", "bandwidth", "peak_flops") if getattr(self, n) is None]
            if missing:
                raise MemoInputError(missing[0], "카탈로그 키(gpu)를 주지 않았으면 GPU 메모리(바이트), 대역폭(바이트/s), "
                                                 f"dense 피크(FLOP/s)를 직접 적어야 합니다. 빠진 항목: {', '.join(missing)}")
        for name, what in (("gpu_memory", "GPU 메모리"), ("bandwidth", "메모리 대역폭"), ("peak_flops", "피크 연산 성능")):
            if getattr(self, name) is not None:
                _positive(getattr(self, name), name, what)


@dataclass(frozen=True)
class Hardware:
    """Resolved per-GPU figures and where each came from."""

    name: str
    memory: float
    bandwidth: float
    peak_flops: float
    peak_label: str
    evidence: str


def resolve_hardware(inp: WorkloadInputs) -> Hardware:
    """Per-GPU memory, bandwidth and dense peak from the catalog and/or the reader's overrides."""
    if inp.gpu is None:
        return Hardware(inp.gpu_name or "직접 입력한 GPU", float(inp.gpu_memory), float(inp.bandwidth),
                        float(inp.peak_flops), "직접 입력한 dense 피크", "직접 입력")
    e = devices.entry(inp.gpu)
    mem = inp.gpu_memory if inp.gpu_memory is not None else (e.get("memory") or {}).get("value")
    bw = inp.bandwidth if inp.bandwidth is not None else (e.get("bandwidth") or {}).get("value")
    peak, label = inp.peak_flops, "직접 입력한 dense 피크"
    if peak is None:
        for prec in dict.fromkeys((inp.precision, "bf16", "fp16")):
            try:
                p = devices.peak(inp.gpu, prec, sparse=False)
            except ValueError:
                continue
            if p.get("value"):
                acc = p.get("accumulate")
                peak, label = p["value"], f"카탈로그 {prec.upper()} dense" + (f", {acc.upper()} 누산" if acc else "")
                break
    for name, val in (("gpu_memory", mem), ("bandwidth", bw), ("peak_flops", peak)):
        if val is None:
            raise MemoInputError(name, f"카탈로그의 {inp.gpu}에는 이 값이 없습니다(미공개 또는 미확인). "
                                       f"{name}=...으로 출처가 있는 값을 직접 적으세요.")
    return Hardware(e["name"], float(mem), float(bw), float(peak), label, "카탈로그")


@dataclass
class MemoReport:
    """The memo: rows of (item, value, basis), a verdict, messages; renders as a Korean table."""

    inputs: WorkloadInputs | None
    rows: list[tuple[str, str, str]] = field(default_factory=list)
    verdict: str = ""
    fits: bool | None = None
    messages: list[str] = field(default_factory=list)
    error: str | None = None
    needed_bytes: float = 0.0
    total_memory: float = 0.0
    decode_tokens_per_s: float | None = None
    train_time_s: float | None = None
    parallelism: str | None = None

    def table(self) -> Table:
        """The report as a :class:`xpucalc.table.Table`."""
        if self.error:
            t = Table(["입력 오류", "고치는 법"])
            arg, _, msg = self.error.partition(": ")
            t.add(arg, msg)
            return t
        t = Table(["항목", "값", "근거"], caption=self.verdict)
        for r in self.rows:
            t.add(*r)
        t.notes.extend(self.messages)
        return t

    def _repr_html_(self) -> str:
        return self.table().to_html()

    def _repr_markdown_(self) -> str:
        return self.table().to_markdown()

    def __repr__(self) -> str:
        if self.error:
            return f"입력 오류 — {self.error}"
        width = max(len(r[0]) for r in self.rows) if self.rows else 0
        lines = [self.verdict] + [f"  {a.ljust(width)}  {b}  [{c}]" for a, b, c in self.rows]
        lines += [f"  * {m}" for m in self.messages]
        return "\n".join(lines)

    __str__ = __repr__


def _needed_bytes(inp: WorkloadInputs, kv: float) -> tuple[float, list[tuple[str, str, str]]]:
    """Memory the goal needs, bytes, with the rows that explain it."""
    n, bpp = inp.n_params, inp.bytes_per_param
    w = llm.weights_bytes(n, bpp)
    rows = [("가중치", f"{fmt_bytes(w)} (= {fmt_num(n / 1e9, 1)}B × {fmt_num(bpp, 3)} 바이트)", COMPUTED)]
    if inp.goal == "serving":
        total = llm.inference_vram_bytes(n, bpp, kv)
        rows.append(("KV 캐시", fmt_bytes(kv) if kv else "모델 구조 미입력 — 제외", COMPUTED if kv else "입력 없음"))
        rows.append(("필요 메모리 (가중치 × 1.2 + KV)", fmt_bytes(total), COMPUTED))
    elif inp.goal == "lora":
        total = w * 1.5
        rows.append(("필요 메모리 (가중치 × 1.5, LoRA 규칙)", fmt_bytes(total), COMPUTED))
    else:
        state = llm.ADAMW_MIXED_BYTES_PER_PARAM * n
        total = llm.full_finetune_vram_bytes(n)
        rows.append(("AdamW 혼합 정밀도 상태 (16 B/파라미터)", fmt_bytes(state), COMPUTED))
        rows.append(("필요 메모리 (20 B/파라미터 규칙, 활성값 포함)", fmt_bytes(total), COMPUTED))
    return total, rows


def _fit_advice(inp: WorkloadInputs, hw: Hardware, kv: float) -> list[str]:
    """What would fit when the job does not: more GPUs, a lower precision, or another method."""
    total_mem = hw.memory * inp.n_gpus
    out = []
    needed, _ = _needed_bytes(inp, kv)
    k = llm.devices_needed(needed, hw.memory)
    out.append(f"같은 GPU라면 최소 {k}개가 필요합니다(완전한 분할을 가정한 하한).")
    if inp.goal in ("serving", "lora"):
        for bpp in (1.0, 0.5):
            if bpp < inp.bytes_per_param:
                alt = WorkloadInputs(**{**_as_dict(inp), "bytes_per_param": bpp})
                nb, _ = _needed_bytes(alt, kv)
                if nb <= total_mem:
                    out.append(f"정밀도를 {PRECISION_NAMES[bpp]}({fmt_num(bpp, 1)} 바이트/파라미터)로 낮추면 "
                               f"{fmt_bytes(nb)}로 지금 GPU {inp.n_gpus}개({fmt_bytes(total_mem)})에 들어갑니다.")
                    break
    else:
        lora = llm.weights_bytes(inp.n_params, 2.0) * 1.5
        qlora = llm.weights_bytes(inp.n_params, 0.5) * 1.5
        if lora <= total_mem:
            out.append(f"LoRA(BF16 기반, 약 {fmt_bytes(lora)})라면 지금 메모리에 들어갑니다.")
        elif qlora <= total_mem:
            out.append(f"QLoRA(4비트 기반, 약 {fmt_bytes(qlora)})라면 지금 메모리에 들어갑니다.")
    return out


def _as_dict(inp: WorkloadInputs) -> dict:
    return {f.name: getattr(inp, f.name) for f in fields(inp)}


def _suggest_parallelism(inp: WorkloadInputs, hw: Hardware, needed: float) -> tuple[str, list[str]] | None:
    """The decision flow of xpucalc.parallelism.suggest: (strategy, reasons and warnings), or None if absent."""
    try:
        from . import parallelism
    except ImportError:
        return None
    per_node = inp.gpus_per_node or min(inp.n_gpus, 8)
    n_nodes = math.ceil(inp.n_gpus / per_node)
    res = parallelism.suggest(needed, hw.memory, per_node, n_nodes, bool(inp.nvlink), bool(inp.is_moe))
    notes = [str(r) for r in getattr(res, "reasons", ())] + [str(w) for w in getattr(res, "warnings", ())]
    return str(getattr(res, "strategy", res)), notes


def estimate(inp: WorkloadInputs) -> MemoReport:
    """Build the memo for ``inp``: memory fit, decode/prefill bounds, training time, parallelism."""
    hw = resolve_hardware(inp)
    rep = MemoReport(inp)
    n, bpp, g = inp.n_params, inp.bytes_per_param, inp.n_gpus
    total_mem = hw.memory * g
    rep.rows.append(("GPU", f"{hw.name} × {g}" + (" (NVLink)" if inp.nvlink and g > 1 else ""), hw.evidence))
    rep.rows.append(("GPU당 메모리 / 대역폭 / 피크", f"{fmt_bytes(hw.memory)} / {fmt_si(hw.bandwidth, 'B/s')} / "
                     f"{fmt_si(hw.peak_flops, 'FLOP/s')} ({hw.peak_label})", hw.evidence))
    kv = 0.0
    if inp.layers is not None:
        kv = llm.kv_cache_bytes(inp.layers, inp.kv_heads, inp.head_dim, inp.seq_len, inp.batch, inp.kv_bytes)
    needed, rows = _needed_bytes(inp, kv)
    rep.rows.extend(rows)
    rep.needed_bytes, rep.total_memory = needed, total_mem
    rep.fits = needed <= total_mem
    rep.rows.append(("메모리 판정", f"{'들어감' if rep.fits else '들어가지 않음'}: 필요 {fmt_bytes(needed)} / "
                     f"보유 {fmt_bytes(total_mem)} ({fmt_num(100 * needed / total_mem, 0)} %)", COMPUTED))
    if not rep.fits:
        rep.messages.extend(_fit_advice(inp, hw, kv))
    bw_all, peak_all = hw.bandwidth * g, hw.peak_flops * g
    if inp.goal == "serving":
        kv_seq = kv / inp.batch
        single = llm.decode_tokens_per_s_bound(llm.weights_bytes(n, bpp) + kv_seq, bw_all)
        thr = llm.decode_throughput(n, inp.batch, bpp, peak_all, bw_all, kv_seq)
        crit = llm.decode_critical_batch(n, bpp, peak_all, bw_all)
        rep.decode_tokens_per_s = thr
        rep.rows.append(("decode 상한, 요청 1개", f"{fmt_num(single, 1)} 토큰/s", COMPUTED))
        rep.rows.append((f"decode 상한, 배치 {inp.batch}", f"{fmt_num(thr, 1)} 토큰/s (배치 합계)", COMPUTED))
        rep.rows.append(("decode가 연산 한계로 바뀌는 배치 (KV 제외)", fmt_num(crit, 0), COMPUTED))
        pre = llm.prefill_time_s(n, inp.seq_len, bpp, peak_all, bw_all, inp.mfu)
        mem_t = llm.weights_bytes(n, bpp) / bw_all
        bound = "메모리 한계" if pre <= mem_t else "연산 한계"
        rep.rows.append((f"prefill {inp.seq_len:,} 토큰 (MFU {fmt_num(100 * inp.mfu, 0)} %)",
                         f"{fmt_time(pre)} = {fmt_num(inp.seq_len / pre, 0)} 토큰/s, {bound}", COMPUTED))
        if not rep.fits:
            rep.messages.append("메모리에 들어가지 않으므로 위의 속도 상한은 들어간다고 가정했을 때의 값입니다.")
        if g > 1:
            rep.messages.append("GPU 여러 개의 대역폭과 피크를 단순 합산한 이상적 상한입니다(통신 시간 제외).")
    if inp.train_tokens is not None and inp.goal != "serving":
        t = llm.train_time_s(n, inp.train_tokens, g, hw.peak_flops, inp.mfu)
        rep.train_time_s = t
        rep.rows.append(("학습 연산량 6NT", fmt_si(llm.train_flops(n, inp.train_tokens), "FLOP"), COMPUTED))
        rep.rows.append((f"학습 시간 (MFU {fmt_num(100 * inp.mfu, 0)} %)",
                         f"{fmt_time(t)} (GPU {g}개" + (f", 1개라면 {fmt_time(t * g)})" if g > 1 else ")"), COMPUTED))
        if inp.goal == "lora":
            rep.messages.append("LoRA도 순전파·역전파를 모두 거치므로 6N은 연산량의 넉넉한 상한으로 봅니다.")
    suggestion = _suggest_parallelism(inp, hw, needed)
    if suggestion is None:
        rep.rows.append(("병렬화 제안", "xpucalc.parallelism 모듈이 없어 건너뜀", "—"))
    else:
        rep.parallelism = suggestion[0]
        rep.rows.append(("병렬화 제안", suggestion[0], "결정 흐름"))
        rep.messages.extend(f"병렬화 판단: {r}" for r in suggestion[1])
    rep.verdict = (f"{GOALS[inp.goal]}: {fmt_num(n / 1e9, 1)}B, {fmt_num(bpp, 3)} 바이트/파라미터 — "
                   + ("메모리에 들어갑니다" if rep.fits else "메모리에 들어가지 않습니다"))
    return rep


def memo(**kwargs) -> MemoReport:
    """Build the memo from keyword arguments (see :class:`WorkloadInputs`).

    Never raises for bad input: the returned report's ``error`` names the argument
    and says how to fix it, and it renders as a one-row Korean table.
    """
    allowed = {f.name for f in fields(WorkloadInputs)}
    unknown = sorted(set(kwargs) - allowed)
    if unknown:
        return MemoReport(None, error=f"{unknown[0]}: 알 수 없는 입력 이름입니다. 쓸 수 있는 이름: {', '.join(sorted(allowed))}")
    if "n_params" not in kwargs:
        return MemoReport(None, error="n_params: 모델 파라미터 수(예: 7e9)를 적어야 합니다.")
    try:
        return estimate(WorkloadInputs(**kwargs))
    except MemoInputError as exc:
        return MemoReport(None, error=str(exc))


__all__ = ["GOALS", "Hardware", "MemoInputError", "MemoReport", "WorkloadInputs", "estimate", "memo",
           "resolve_hardware"]
