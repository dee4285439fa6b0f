"""'My workload memo': does a model fit, how fast can it decode, how long does training take.

The reader describes the hardware and the job in one :class:`WorkloadInputs`
(SI units: bytes, bytes/s, FLOP/s) and calls :func:`estimate`, or calls :func:`memo`
with keyword arguments: ``memo`` never raises for bad input but returns a report
whose message names the argument and the fix. The model is a catalog key
(``model="llama-3-70b"``, see ``xpucalc.llm.models.keys()``) or a ``config.json`` dict;
serving is then estimated by :func:`xpucalc.llm.serve` for a TP x PP x replica layout
(per request and for all replicas together). A bare ``n_params`` still works, with
scalar rules only.

The report holds its rows as Korean strings and the parallelism decision as a
:class:`xpucalc.llm.parallelism.Plan`; ``xpucalc.render.memo_view`` turns it into the table,
the Markdown and the plain text the lab shows.

Every figure in the report is an idealised roofline estimate (분석 계산) built from
catalog figures or the reader's own numbers; none is a measurement.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field, fields

from .. import llm
from ..evidence import COMPUTED
from ..units import fmt_bytes, fmt_num, fmt_si, fmt_time
from . import Model, offload, parallelism
from .hardware import Hardware, MissingFigureError, resolve as resolve_device
from .parallelism import Plan
from .serving import GPU_MEMORY_UTILIZATION, ServeEstimate, layouts, serve

from .memo_inputs import GOALS, PRECISION_NAMES, PRIORITIES, MemoInputError, WorkloadInputs, resolve_model


def resolve_hardware(inp: WorkloadInputs) -> Hardware:
    """Per-GPU memory, bandwidth, dense peak and links from the catalog and/or the reader's overrides.

    The lookup is :func:`xpucalc.llm.hardware.resolve` (the one ``xpucalc.llm.serve`` uses); here a
    missing figure becomes a :class:`MemoInputError` that says, in Korean, what to write. A missing
    peak is allowed (decode needs only bandwidth); goals that need it check later.
    """
    try:
        return resolve_device(inp.gpu, inp.precision, memory=inp.gpu_memory, bandwidth=inp.bandwidth,
                              peak_flops=inp.peak_flops, name=inp.gpu_name or "직접 입력한 GPU")
    except MissingFigureError as exc:
        name = {"memory": "gpu_memory"}.get(exc.argument, exc.argument)
        raise MemoInputError(name, f"카탈로그의 {inp.gpu}에는 이 값이 없습니다(미공개 또는 미확인). "
                                   f"{name}=...으로 출처가 있는 값을 직접 적으세요.") from exc


def _peak_label(hw: Hardware) -> str:
    """Where the memo's peak came from, in Korean."""
    if hw.peak_flops is None:
        return "카탈로그에 dense 최대 처리율 없음(미공개)"
    if hw.peak_precision is None:
        return "직접 입력한 dense 최대 처리율"
    acc = f", {hw.peak_accumulate.upper()} 누산" if hw.peak_accumulate else ""
    return f"카탈로그 {hw.peak_precision.upper()} dense{acc}"


def _evidence(hw: Hardware) -> str:
    return "카탈로그" if hw.key is not None else "직접 입력"


@dataclass
class MemoReport:
    """The memo: rows of (item, value, basis), a verdict, messages, or the input error.

    ``rows`` are the estimates; ``plan`` is the parallelism decision of the scalar path (its
    row and reasons are worded by ``xpucalc.render.parallelism_text``), shown after ``rows``;
    ``context_rows`` echo the reader's own notes and come last. ``decode_tokens_per_s`` is the
    aggregate of all replicas; ``decode_tokens_per_s_per_request`` is what one user sees.
    ``xpucalc.render.memo_view.show_memo(report)`` displays it.
    """

    inputs: WorkloadInputs | None
    rows: list[tuple[str, str, str]] = field(default_factory=list)
    context_rows: list[tuple[str, str, str]] = field(default_factory=list)
    plan: Plan | None = None
    verdict: str = ""
    fits: bool | None = None
    messages: list[str] = field(default_factory=list)
    error: MemoInputError | None = None
    needed_bytes: float = 0.0
    total_memory: float = 0.0
    decode_tokens_per_s: float | None = None
    decode_tokens_per_s_per_request: float | None = None
    train_time_s: float | None = None
    serving: ServeEstimate | None = None
    suggestions: list[str] = field(default_factory=list)

    def __repr__(self) -> str:
        if self.error:
            return f"MemoReport(error={str(self.error)!r})"
        return f"MemoReport(verdict={self.verdict!r})"


def _n_params(inp: WorkloadInputs) -> float:
    return float(resolve_model(inp.model).n_params) if inp.model is not None else float(inp.n_params)


def _needed_bytes(inp: WorkloadInputs, kv: float) -> tuple[float, list[tuple[str, str, str]]]:
    """Memory the goal needs (scalar rules), bytes, with the rows that explain it."""
    n, bpp = _n_params(inp), inp.bytes_per_param
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
        rows.append(("AdamW 혼합 정밀도 상태 (16 B/파라미터, 활성값 제외)", fmt_bytes(state), COMPUTED))
        rows.append(("필요 메모리 (20 B/파라미터 규칙 = 상태 16 B + 활성값 몫 약 4 B)", fmt_bytes(total), COMPUTED))
    return total, rows


def _fit_advice(inp: WorkloadInputs, hw: Hardware, kv: float) -> list[str]:
    """What would fit when the job does not (scalar path): more GPUs, a lower precision, or another method."""
    total_mem = hw.memory * inp.n_gpus
    out = []
    needed, _ = _needed_bytes(inp, kv)
    k = llm.devices_needed(needed, hw.memory)
    out.append(f"같은 GPU라면 최소 {k}개가 필요합니다(완전한 분할을 가정한 하한).")
    n = _n_params(inp)
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
        lora = llm.lora_vram_bytes(n)
        qlora = llm.weights_bytes(n, 0.5) * 1.5
        if lora <= total_mem:
            out.append(f"LoRA(BF16 기반, 가중치 × 1.5 규칙으로 약 {fmt_bytes(lora)})라면 지금 메모리에 들어갑니다.")
        elif qlora <= total_mem:
            out.append(f"QLoRA(4비트 기반, 가중치 × 1.5 규칙으로 약 {fmt_bytes(qlora)})라면 지금 메모리에 들어갑니다.")
    return out


def _as_dict(inp: WorkloadInputs) -> dict:
    return {f.name: getattr(inp, f.name) for f in fields(inp)}


def _suggest_parallelism(inp: WorkloadInputs, hw: Hardware, needed: float) -> Plan:
    """The decision flow of :func:`xpucalc.llm.parallelism.suggest` for the reader's GPUs."""
    per_node = min(8 if inp.gpus_per_node is None else inp.gpus_per_node, inp.n_gpus)
    n_nodes = math.ceil(inp.n_gpus / per_node)
    heads = None
    moe = bool(inp.is_moe)
    if inp.model is not None:
        m = resolve_model(inp.model)
        heads, moe = (m.num_heads, m.num_kv_heads), m.is_moe
    return parallelism.suggest(needed, hw.memory, per_node, n_nodes, bool(inp.nvlink), moe,
                               goal="serving" if inp.goal == "serving" else "training", n_gpus=inp.n_gpus, heads=heads)


def _device_for_serve(inp: WorkloadInputs, hw: Hardware) -> str | Hardware:
    """The catalog key when the reader changed no figure (serve then picks the peak for the weight precision)."""
    return inp.gpu if hw.from_catalog and inp.gpu is not None else hw


def _serve_layout(inp: WorkloadInputs, m: Model, dev: str | Hardware, **kw) -> tuple[ServeEstimate, str]:
    """The layout for the memo: the reader's tp/pp, else the best fitting one for the priority."""
    g = inp.n_gpus
    if inp.tp is not None:
        t, p = inp.tp, 1 if inp.pp is None else inp.pp
        return serve(m, dev, tp=t, pp=p, dp=g // (t * p), **kw), "직접 지정"
    per_node = min(8 if inp.gpus_per_node is None else inp.gpus_per_node, g)
    cands = layouts(m, dev, g, gpus_per_node=per_node, **kw)
    if cands:
        if inp.priority == "throughput":
            best = max(cands, key=lambda r: serve(m, dev, tp=r.tp, pp=r.pp, dp=r.dp,
                                                  **{**kw, "batch": max(1, r.max_batch)}).decode_tokens_per_s_total)
            return best, "들어가는 구성 가운데 최대 배치에서 전체 처리량이 가장 큰 것"
        return cands[0], "들어가는 구성 가운데 요청 하나의 디코드가 가장 빠른 것"
    t = max(x for x in m.valid_tp() if x <= per_node and g % x == 0)
    return serve(m, dev, tp=t, pp=g // t, dp=1, **kw), "들어가는 구성이 없어 메모리가 가장 넓은 구성"


def _latency_words(key: str | None) -> str:
    """Where the per-message all-reduce cost came from, in Korean (a third party's report is 문서 확인)."""
    if key is None:
        return "직접 입력"
    if key.startswith("pcie"):
        return "PCIe에서 NCCL, RTX 4090 8장 nccl-tests 보고값(문서 확인)"
    return "NVLink에서 서빙 엔진의 원샷(one-shot) all-reduce, H100 보고값(문서 확인)"


def _serving_rows(inp: WorkloadInputs, hw: Hardware, rep: MemoReport) -> None:
    """Rows of a serving memo for a known architecture (xpucalc.llm.serve)."""
    m = resolve_model(inp.model)
    dev = _device_for_serve(inp, hw)
    kw = dict(batch=inp.batch, context=inp.seq_len, weight_bytes=inp.bytes_per_param, kv_bytes=inp.kv_bytes,
              prefill_mfu=inp.mfu, precision=inp.precision)
    has_nvlink = hw.link_label.startswith("NVLink")
    if inp.nvlink and inp.n_gpus > 1 and inp.gpu is not None and not has_nvlink:
        raise MemoInputError("nvlink", f"카탈로그의 {hw.name}에는 NVLink가 없어 GPU 사이 통신을 {hw.link_label}로 "
                                       "계산합니다. NVLink 없이 PCIe로 연결되어 있으면 nvlink=False로 적으세요.")
    if not inp.nvlink and has_nvlink:
        kw["link_bandwidth"] = hw.host_link_bandwidth   # nvlink=False: the GPUs talk over the PCIe host link
        kw["interconnect"] = "pcie"                        # and pay NCCL's per-message cost over PCIe
    r, why = _serve_layout(inp, m, dev, **kw)
    mem, dec = r.memory, r.decode
    rep.serving, rep.fits = r, r.fits
    rep.needed_bytes = mem.weights + mem.kv_cache
    rep.total_memory = mem.usable
    layout = f"TP {r.tp} × PP {r.pp} × 사본 {r.dp}"
    rep.rows.append(("가중치 (전체)", f"{fmt_bytes(m.weights_bytes(inp.bytes_per_param))}", COMPUTED))
    rep.rows.append(("레이아웃", f"{layout} = GPU {r.n_devices}장 ({why}; {PRIORITIES[inp.priority]})", COMPUTED))
    rep.rows.append(("GPU당 메모리", f"가중치 {fmt_bytes(mem.weights)} + KV {fmt_bytes(mem.kv_cache)} "
                     f"(배치 {r.batch} × {r.context:,} 토큰) / 쓸 수 있는 {fmt_bytes(mem.usable)}", COMPUTED))
    rep.rows.append(("예비분 (GPU당)", f"{fmt_bytes(mem.reserve)} = 용량의 {fmt_num(100 * (1 - GPU_MEMORY_UTILIZATION), 0)} % "
                     "(CUDA 컨텍스트·활성값·단편화; vLLM 기본값 0.9를 따름)", COMPUTED))
    rep.rows.append(("메모리 판정", f"{'들어감' if r.fits else '들어가지 않음'}; 이 구성의 최대 배치 {r.max_batch}", COMPUTED))
    rep.decode_tokens_per_s_per_request = r.decode_tokens_per_s_per_request
    rep.decode_tokens_per_s = r.decode_tokens_per_s_total
    rep.rows.append(("디코드 상한, 요청 하나", f"{fmt_num(r.decode_tokens_per_s_per_request, 1)} 토큰/s "
                     f"(한 단계 {fmt_time(dec.step_s)}, {'연산' if dec.bound == 'compute' else '메모리'} 한계)",
                     COMPUTED))
    rep.rows.append(("디코드 상한, 전체", f"{fmt_num(r.decode_tokens_per_s_total, 1)} 토큰/s "
                     f"(사본 {r.dp}개 × 배치 {r.batch}"
                     + (f", 파이프라인에 마이크로배치 {r.microbatches}개" if r.pp > 1 else "") + ")", COMPUTED))
    if r.tp > 1:
        rep.rows.append(("TP all-reduce (디코드 한 단계)", f"{fmt_time(dec.allreduce_s)} (층당 2회, 1회 고정비 "
                         f"{fmt_time(r.allreduce_latency_s)}: {_latency_words(r.latency_key)})", COMPUTED))
    if r.prefill_s is None:
        rep.rows.append((f"프리필 {inp.seq_len:,} 토큰", "계산하지 않음: 이 장치는 dense 최대 처리율이 공개되지 않았습니다", "미공개"))
    else:
        rep.rows.append((f"프리필 {inp.seq_len:,} 토큰 (MFU {fmt_num(100 * inp.mfu, 0)} %)",
                         f"{fmt_time(r.prefill_s)} (어텐션 항 포함)", COMPUTED))
    if m.is_moe:
        rep.messages.append(f"MoE: 디코드 한 단계가 토큰 {r.batch}개로 층마다 전문가 {m.num_experts}개 가운데 평균 "
                            f"{fmt_num(m.expected_experts_touched(r.batch), 2)}개를 읽는다고 봅니다(균등 라우팅 가정).")
    if r.prefill_s is None:
        rep.messages.append("최대 처리율이 공개되지 않은 장치이므로 디코드는 대역폭 한계로만 계산했습니다.")
    if not r.fits:
        rep.messages.append("메모리에 들어가지 않으므로 위의 속도는 들어간다고 가정했을 때의 값입니다.")
    if not r.fits or r.max_batch < inp.batch:
        rep.suggestions.extend(_batch_kv_advice(inp, r, serve(m, dev, tp=r.tp, pp=r.pp, dp=r.dp, **{**kw, "kv_bytes": 1.0})
                                                if inp.kv_bytes > 1 else None))
        if inp.bytes_per_param > 1:
            alt = serve(m, dev, tp=r.tp, pp=r.pp, dp=r.dp, **{**kw, "weight_bytes": 1.0})
            if alt.fits:
                rep.suggestions.append(f"가중치를 FP8(1바이트)로 두면 들어가고 요청 하나의 디코드는 "
                                       f"{fmt_num(alt.decode_tokens_per_s_per_request, 1)} 토큰/s입니다.")
        for n in (k for k in range(inp.n_gpus + 1, 129) if k % min(8, k) == 0 and (k >= 8 or k & (k - 1) == 0)):
            more = layouts(m, dev, n, gpus_per_node=8, **kw)
            if more:
                b = more[0]
                rep.suggestions.append(f"GPU를 {n}장으로 늘리면 TP {b.tp} × PP {b.pp} × 사본 {b.dp}로 들어갑니다"
                                       f"(요청 하나 {fmt_num(b.decode_tokens_per_s_per_request, 1)} 토큰/s).")
                break
        if inp.system_ram is not None and not r.fits:
            _offload_row(inp, hw, r, rep)
    if inp.interconnect and "pcie" in inp.interconnect.lower() and r.tp > 1:
        rep.messages.append("GPU가 PCIe로만 연결되어 있다면 TP의 층별 all-reduce가 느려집니다. PP를 함께 비교해 보세요.")


def _batch_kv_advice(inp: WorkloadInputs, r: ServeEstimate, fp8_kv: ServeEstimate | None) -> list[str]:
    """What a smaller batch or an FP8 KV cache can do when the batch does not fit; nothing when it cannot help.

    ``fp8_kv`` is the same layout with 1-byte KV elements (None when the KV cache is already 1 byte).
    When the weights alone exceed the usable memory of a device, no batch or KV setting fits, so the
    advice says so and leaves the remedy to the weight-precision and GPU-count suggestions.
    """
    mem = r.memory
    if mem.weights > mem.usable:
        return [f"가중치만으로 GPU당 {fmt_bytes(mem.weights)}라 쓸 수 있는 {fmt_bytes(mem.usable)}를 넘습니다. "
                "배치를 줄이거나 KV 캐시를 줄여서는 들어가지 않으니, 가중치 정밀도를 낮추거나 GPU를 늘려야 합니다."]
    out = []
    if r.max_batch >= 1:
        out.append(f"이 구성에서 {r.context:,} 토큰 시퀀스는 배치 {r.max_batch}까지 들어갑니다.")
    else:
        out.append(f"{r.context:,} 토큰 시퀀스 하나의 KV 캐시(GPU당 {fmt_bytes(mem.kv_cache / math.ceil(r.batch / r.ep))})도 가중치를 담고 "
                   f"남는 {fmt_bytes(mem.usable - mem.weights)}에 들어가지 않습니다. 문맥(seq_len)을 줄이세요.")
    if fp8_kv is not None and fp8_kv.max_batch > r.max_batch:
        if fp8_kv.fits:
            out.append(f"KV 캐시를 FP8(원소당 1바이트)로 두면 같은 구성에 들어갑니다(최대 배치 {fp8_kv.max_batch}).")
        else:
            out.append(f"KV 캐시를 FP8(원소당 1바이트)로 두면 최대 배치가 {fp8_kv.max_batch}까지 늘어납니다.")
    return out


def _offload_row(inp: WorkloadInputs, hw: Hardware, r: ServeEstimate, rep: MemoReport) -> None:
    """CPU offload: the part that does not fit is read from host RAM over the host link every token."""
    shard = r.tp * r.pp
    excess = (r.memory.weights + r.memory.kv_cache - r.memory.usable) * shard
    link, gen = hw.host_link_bandwidth, hw.host_link_label + (" (가정)" if hw.host_link_assumed else "")
    if excess > inp.system_ram:
        rep.suggestions.append(f"모자라는 {fmt_bytes(excess)}는 시스템 RAM {fmt_bytes(inp.system_ram)}에도 들어가지 않습니다.")
        return
    read = r.memory.weights + r.memory.kv_cache
    tok = offload.tokens_per_s_bound(read, excess / shard, hw.bandwidth, link)
    rep.rows.append(("CPU 오프로드 시 디코드 상한", f"{fmt_num(tok, 2)} 토큰/s (GPU마다 {fmt_bytes(excess / shard)}를 "
                     f"{gen} 한 방향 {fmt_si(link, 'B/s')}로 매 토큰 읽음)", COMPUTED))


def _context_rows(inp: WorkloadInputs, rep: MemoReport) -> None:
    """The source's §13 fields the reader wrote down, echoed so the copied memo carries them."""
    if inp.system_ram is not None:
        rep.context_rows.append(("시스템 RAM", fmt_bytes(inp.system_ram), "직접 입력"))
    if inp.storage or inp.storage_bandwidth:
        load = ""
        if inp.storage_bandwidth:
            w = llm.weights_bytes(_n_params(inp), inp.bytes_per_param)
            load = f"; 가중치 적재 {fmt_time(w / inp.storage_bandwidth)} (= {fmt_bytes(w)} ÷ {fmt_si(inp.storage_bandwidth, 'B/s')})"
        rep.context_rows.append(("스토리지", (inp.storage or "—") + load, "직접 입력"))
    rep.context_rows.append(("연결 방식", inp.interconnect or ("NVLink" if inp.nvlink else "적지 않음"), "직접 입력"))
    if inp.goal == "serving":
        rep.context_rows.append(("우선순위", PRIORITIES[inp.priority], "직접 입력"))
    if inp.bottleneck:
        rep.context_rows.append(("지금의 병목 (본인 판단)", inp.bottleneck, "직접 입력"))


def estimate(inp: WorkloadInputs) -> MemoReport:
    """Build the memo for ``inp``: memory fit, decode/prefill bounds, training time, layout."""
    hw = resolve_hardware(inp)
    if hw.peak_flops is None and (inp.goal != "serving" or inp.train_tokens is not None):
        raise MemoInputError("peak_flops", f"{hw.name}는 dense 최대 처리율이 공개되지 않았습니다. 학습·파인튜닝 시간에는 최대 처리율이 "
                                           "필요하니 출처가 있는 값을 peak_flops=...로 적으세요(서빙 디코드는 없이도 계산합니다).")
    rep = MemoReport(inp)
    g = inp.n_gpus
    mdl = resolve_model(inp.model) if inp.model is not None else None
    n, bpp = _n_params(inp), inp.bytes_per_param
    if mdl is not None:
        act = f", 토큰당 활성 {fmt_num(mdl.n_active_params / 1e9, 1)}B (MoE)" if mdl.is_moe else ""
        rep.rows.append(("모델", f"{mdl.name}: {fmt_num(mdl.n_params / 1e9, 2)}B 파라미터{act}", COMPUTED))
    rep.rows.append(("GPU", f"{hw.name} × {g}" + (" (NVLink)" if inp.nvlink and g > 1 else ""), _evidence(hw)))
    peak = fmt_si(hw.peak_flops, "FLOP/s") if hw.peak_flops else "최대 처리율 미공개"
    rep.rows.append(("GPU당 메모리 / 대역폭 / 최대 처리율", f"{fmt_bytes(hw.memory)} / {fmt_si(hw.bandwidth, 'B/s')} / "
                     f"{peak} ({_peak_label(hw)})", _evidence(hw)))
    if inp.goal == "serving" and mdl is not None:
        _serving_rows(inp, hw, rep)
    else:
        _scalar_rows(inp, hw, rep, mdl)
    _context_rows(inp, rep)
    rep.verdict = (f"{GOALS[inp.goal]}: {fmt_num(n / 1e9, 1)}B, {fmt_num(bpp, 3)} 바이트/파라미터 — "
                   + ("메모리에 들어갑니다" if rep.fits else "메모리에 들어가지 않습니다"))
    return rep


def _scalar_rows(inp: WorkloadInputs, hw: Hardware, rep: MemoReport, mdl: Model | None) -> None:
    """Rows from the scalar rules (no architecture for serving; training with or without one)."""
    n, bpp, g = _n_params(inp), inp.bytes_per_param, inp.n_gpus
    kv = 0.0
    if inp.layers is not None:
        kv = llm.kv_cache_bytes(inp.layers, inp.kv_heads, inp.head_dim, inp.seq_len, inp.batch, inp.kv_bytes)
    elif mdl is not None:
        kv = mdl.kv_bytes_per_token(inp.kv_bytes) * inp.seq_len * inp.batch
    needed, rows = _needed_bytes(inp, kv)
    total_mem = hw.memory * g
    rep.rows.extend(rows)
    rep.needed_bytes, rep.total_memory = needed, total_mem
    rep.fits = needed <= total_mem
    rep.rows.append(("메모리 판정", f"{'들어감' if rep.fits else '들어가지 않음'}: 필요 {fmt_bytes(needed)} / "
                     f"보유 {fmt_bytes(total_mem)} ({fmt_num(100 * needed / total_mem, 0)} %)", COMPUTED))
    if not rep.fits:
        rep.suggestions.extend(_fit_advice(inp, hw, kv))
    if inp.goal == "serving":
        # one request runs on one copy of the model: k GPUs hold it, the other copies serve other requests
        k = min(g, llm.devices_needed(needed, hw.memory))
        copies = max(1, g // k)
        kv_seq = kv / inp.batch
        single = llm.decode_tokens_per_s_bound(llm.weights_bytes(n, bpp) + kv_seq, hw.bandwidth * k)
        if hw.peak_flops:
            per_copy = llm.decode_throughput(n, inp.batch, bpp, hw.peak_flops * k, hw.bandwidth * k, kv_seq)
        else:
            per_copy = inp.batch * llm.decode_tokens_per_s_bound(llm.weights_bytes(n, bpp) + inp.batch * kv_seq,
                                                                 hw.bandwidth * k)
        rep.decode_tokens_per_s_per_request = single if inp.batch == 1 else per_copy / inp.batch
        rep.decode_tokens_per_s = per_copy * copies
        rep.rows.append(("디코드 상한, 요청 하나", f"{fmt_num(rep.decode_tokens_per_s_per_request, 1)} 토큰/s "
                         f"(사본 하나 = GPU {k}장)", COMPUTED))
        rep.rows.append(("디코드 상한, 전체", f"{fmt_num(rep.decode_tokens_per_s, 1)} 토큰/s (사본 {copies}개 × 배치 "
                         f"{inp.batch})", COMPUTED))
        if hw.peak_flops:
            pre = llm.prefill_time_s(n, inp.seq_len, bpp, hw.peak_flops * k, hw.bandwidth * k, inp.mfu)
            rep.rows.append((f"프리필 {inp.seq_len:,} 토큰 (MFU {fmt_num(100 * inp.mfu, 0)} %, 어텐션 제외)",
                             fmt_time(pre), COMPUTED))
        rep.messages.append("모델 구조를 모르므로 TP 통신·MoE·어텐션을 뺀 상한입니다. model=\"llama-3-8b\"처럼 "
                            "적으면 구조에서 계산합니다.")
        if not rep.fits:
            rep.messages.append("메모리에 들어가지 않으므로 위의 속도 상한은 들어간다고 가정했을 때의 값입니다.")
    if inp.train_tokens is not None and inp.goal != "serving":
        if mdl is not None:
            t = llm.training.model_train_time_s(mdl, inp.train_tokens, inp.seq_len, g, hw.peak_flops, inp.mfu)
            flops = llm.training.model_train_flops(mdl, inp.train_tokens, inp.seq_len)
            label = f"학습 연산량 T × (6N_활성 + 어텐션, 시퀀스 {inp.seq_len:,})"
        else:
            t = llm.train_time_s(n, inp.train_tokens, g, hw.peak_flops, inp.mfu)
            flops, label = llm.train_flops(n, inp.train_tokens), "학습 연산량 6NT (어텐션 제외)"
        rep.train_time_s = t
        rep.rows.append((label, fmt_si(flops, "FLOP"), COMPUTED))
        rep.rows.append((f"학습 시간 (MFU {fmt_num(100 * inp.mfu, 0)} %)",
                         f"{fmt_time(t)} (GPU {g}개" + (f", 1개라면 {fmt_time(t * g)})" if g > 1 else ")"), COMPUTED))
        if inp.goal == "lora":
            rep.messages.append("LoRA도 순전파·역전파를 모두 거치므로 6N은 연산량의 넉넉한 상한으로 봅니다.")
    rep.plan = _suggest_parallelism(inp, hw, needed)


def memo(**kwargs) -> MemoReport:
    """Build the memo from keyword arguments (see :class:`WorkloadInputs`).

    Never raises for bad input: the returned report's ``error`` is the :class:`MemoInputError`
    (``.argument`` names the argument, ``.message`` says how to fix it), and the report
    renders as a one-row Korean table.
    """
    allowed = {f.name for f in fields(WorkloadInputs)}
    unknown = sorted(set(kwargs) - allowed)
    if unknown:
        return MemoReport(None, error=MemoInputError(
            unknown[0], f"알 수 없는 입력 이름입니다. 쓸 수 있는 이름: {', '.join(sorted(allowed))}"))
    if "n_params" not in kwargs and "model" not in kwargs:
        return MemoReport(None, error=MemoInputError(
            "model", "모델을 적어야 합니다. model=\"llama-3-8b\"(카탈로그 키), config.json을 읽은 딕셔너리, 또는 n_params=7e9(파라미터 수)"))
    try:
        return estimate(WorkloadInputs(**kwargs))
    except MemoInputError as exc:
        return MemoReport(None, error=exc)


__all__ = ["GOALS", "PRIORITIES", "Hardware", "MemoInputError", "MemoReport", "WorkloadInputs", "estimate", "memo",
           "resolve_hardware", "resolve_model"]
