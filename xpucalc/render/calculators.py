"""The three in-page calculators: roofline, LLM serving and the workload memo, as the page shows them.

Each calculator is a form (:mod:`xpucalc.render.calc_forms`) and a function from the form's values to
what the page shows. The page runs :func:`run` in the reader's browser (Pyodide) and the tests run it in
CPython, so both show the same thing; every figure comes from the package's own functions
(``xpucalc.roofline``, ``xpucalc.llm.serve``, ``xpucalc.llm.memo.memo``), this module only formats it.

:func:`run` never raises for bad input. It returns a dict that JSON can carry:

- ``errors``: ``{field: Korean message}`` for each field to fix (``""`` for a problem of the whole form);
- ``rows``: ``[{"key", "label", "text", "value"}]``, ``value`` in SI units (or None for text);
- ``verdict``: one Korean sentence; ``notes``: the assumptions, Korean (``notes_title`` when they are not);
- ``plot`` (roofline): the numbers the page draws its small roofline from;
- ``copy`` (memo): the memo as Markdown to copy; ``text``: the memo as plain text.
"""
from __future__ import annotations

import inspect
import json
import re
from functools import lru_cache

from .. import evidence
from ..catalog import devices
from ..core.device import Device
from ..core.roofline import ridge_point, roofline
from ..core.workload import Workload, linear_layer
from ..llm import memo as memo_mod
from ..llm import models
from ..llm.memo_inputs import GOALS, PRECISION_NAMES, PRIORITIES
from ..llm.model import Model
from ..llm.serving import ALLREDUCE_LATENCY_S, GPU_MEMORY_UTILIZATION, allreduce_latency_figure, serve
from ..units import GB, TB, TFLOPS, fmt_bytes, fmt_num, fmt_si, fmt_time
from .calc_forms import Field, FormError, form_html, parse
from .memo_view import memo_markdown, memo_text
from .memo_view import notes as memo_notes
from .memo_view import rows as memo_rows

TITLES = {
    "roofline": "계산기: roofline으로 시간과 한계 자원 구하기",
    "serving": "계산기: LLM 서빙 — 메모리에 들어가는지, 얼마나 빠른지",
    "memo": "계산기: 내 워크로드 메모",
}
INTROS = {
    "roofline": "장치(카탈로그 또는 직접 입력한 P와 BW)와 작업(행렬 크기 또는 F와 Q)을 바꾸면 결과가 바로 다시 계산됩니다.",
    "serving": "모델, 장치, 병렬화 구성과 배치·문맥 길이를 바꾸면 xpucalc.llm.serve가 다시 계산합니다. 모든 값은 루프라인 상한(분석 계산)입니다.",
    "memo": "실습 03의 워크로드 메모(xpucalc.llm.memo)를 이 페이지에서 만듭니다. 결과는 복사해 설계 문서에 붙일 수 있습니다.",
}
CUSTOM = "custom"
BYTES_OPTIONS = tuple((f"{b:g}", f"{b:g} ({name})") for b, name in sorted(PRECISION_NAMES.items(), reverse=True))


def _device_options(need_peak: bool) -> tuple[tuple[str, str], ...]:
    out = []
    for key in devices.keys():
        e = devices.entry(key)
        if e.memory is None or e.memory.value is None or e.bandwidth is None or e.bandwidth.value is None:
            continue
        if need_peak and not dense_precisions(key):
            continue
        out.append((key, e.name))
    return tuple(out)


def _model_options() -> tuple[tuple[str, str], ...]:
    return tuple((k, models.entry(k)["name"]) for k in models.keys())


def dense_precisions(key: str) -> list[str]:
    """Catalog precisions of ``key`` with a published dense peak, in catalog order of ``devices.PRECISIONS``."""
    peaks = devices.peaks(key)
    return [p for p in devices.PRECISIONS if any(f.precision == p and f.sparse is False and f.value for f in peaks)]


@lru_cache(maxsize=None)
def fields(calc: str) -> tuple[Field, ...]:
    """The form of calculator ``calc`` (``"roofline"``, ``"serving"`` or ``"memo"``)."""
    if calc == "roofline":
        devs = _device_options(need_peak=True)
        catalog = tuple(k for k, _ in devs)
        return (
            Field("device", "장치", "select", "virtual-a", options=devs + ((CUSTOM, "직접 입력 (P와 BW)"),)),
            Field("precision", "정밀도 (dense 최대 처리율)", "select", "bf16",
                  options=tuple((p, p.upper()) for p in devices.PRECISIONS), when=("device", catalog)),
            Field("peak", "최대 처리율 P", unit="TFLOP/s", scale=TFLOPS, default="200", when=("device", (CUSTOM,))),
            Field("bandwidth", "메모리 대역폭 BW", unit="TB/s", scale=TB, default="1", when=("device", (CUSTOM,))),
            Field("mode", "작업", "select", "fq", options=(("fq", "연산량 F와 이동량 Q"),
                                                          ("mkn", "선형층 Y = ReLU(XW + b): M, K, N"))),
            Field("flops", "연산량 F", unit="TFLOP", scale=TFLOPS, default="1", when=("mode", ("fq",))),
            Field("bytes", "이동량 Q", unit="GB", scale=GB, default="100", when=("mode", ("fq",))),
            Field("m", "M (X의 행)", "int", "128", when=("mode", ("mkn",))),
            Field("k", "K (입력 특징)", "int", "1024", when=("mode", ("mkn",))),
            Field("n", "N (출력 특징)", "int", "1024", when=("mode", ("mkn",))),
            Field("dtype_bytes", "원소당 바이트", unit="B", default="2", when=("mode", ("mkn",)),
                  help="BF16/FP16은 2, FP32는 4"),
        )
    if calc == "serving":
        return (
            Field("model", "모델", "select", "llama-3-70b",
                  options=_model_options() + (("config", "config.json 붙여넣기"),)),
            Field("config", "config.json", "json", json.dumps(models.config("llama-3-8b"), indent=1),
                  when=("model", ("config",)), help="Llama·Mistral·Mixtral 형식의 config.json 내용"),
            Field("device", "장치", "select", "h100-sxm", options=_device_options(need_peak=False)),
            Field("tp", "TP (텐서 병렬)", "int", "8"),
            Field("pp", "PP (파이프라인 단계)", "int", "1"),
            Field("dp", "DP (사본 수)", "int", "1"),
            Field("ep", "EP (전문가 병렬, MoE만)", "int", "1"),
            Field("batch", "배치 (사본당 시퀀스)", "int", "16"),
            Field("context", "문맥 길이 (프롬프트 + 출력)", "int", "4096", unit="토큰"),
            Field("weight_bytes", "가중치 바이트", "select", "2", options=BYTES_OPTIONS[1:]),
            Field("kv_bytes", "KV 캐시 원소당 바이트", "select", "2", options=BYTES_OPTIONS[1:3]),
        )
    if calc == "memo":
        return (
            Field("model", "모델", "select", "llama-3-8b", options=_model_options()),
            Field("goal", "목표", "select", "serving", options=tuple(GOALS.items())),
            Field("gpu", "GPU", "select", "h100-sxm", options=_device_options(need_peak=False)),
            Field("n_gpus", "GPU 수", "int", "1"),
            Field("nvlink", "NVLink로 연결", "select", "false", options=(("false", "아니요"), ("true", "예"))),
            Field("tp", "TP (비우면 메모가 고름)", "int", "", optional=True, when=("goal", ("serving",))),
            Field("pp", "PP (비우면 1)", "int", "", optional=True, when=("goal", ("serving",))),
            Field("priority", "우선순위", "select", "latency", options=tuple(PRIORITIES.items()),
                  when=("goal", ("serving",))),
            Field("seq_len", "시퀀스 길이", "int", "4096", unit="토큰"),
            Field("batch", "배치", "int", "1"),
            Field("bytes_per_param", "파라미터당 바이트", "select", "2", options=BYTES_OPTIONS),
            Field("kv_bytes", "KV 원소당 바이트", "select", "2", options=BYTES_OPTIONS[1:3], when=("goal", ("serving",))),
            Field("mfu", "MFU (0~1)", default="0.4", help="40 %는 0.4"),
            Field("train_tokens", "학습 토큰 수", unit="B 토큰", scale=1e9, optional=True,
                  when=("goal", ("lora", "full_ft", "training"))),
            Field("system_ram", "시스템 RAM", unit="GB", scale=GB, optional=True),
            Field("interconnect", "연결 방식 (메모에 그대로 적음)", "text", optional=True),
            Field("bottleneck", "지금의 병목 (본인 판단)", "text", optional=True),
        )
    raise ValueError(f"calc must be one of {', '.join(TITLES)}, got {calc!r}")


def calculator_html(calc: str) -> str:
    """The calculator's box as the built page holds it (see :func:`xpucalc.render.calc_forms.form_html`)."""
    return form_html(calc, TITLES[calc], list(fields(calc)), INTROS[calc])


def _row(key: str, label: str, text: str, value: float | None = None) -> dict:
    return {"key": key, "label": label, "text": text, "value": value}


def _argument(exc: Exception) -> str:
    """The argument an xpucalc ValueError names: its first word (``"tp=3 must ..."`` -> ``"tp"``)."""
    m = re.match(r"\s*(\w+)", str(exc))
    return m.group(1) if m else ""


# ---------------------------------------------------------------- roofline
def _roofline_device(v: dict) -> tuple[Device, list[str]]:
    if v["device"] == CUSTOM:
        return Device("직접 입력한 장치", v["peak"], v["bandwidth"]), [evidence.COMPUTED]
    key, prec = v["device"], v["precision"]
    have = dense_precisions(key)
    if prec not in have:
        raise FormError("precision", f"{devices.entry(key).name}의 카탈로그에는 {prec.upper()} dense 최대 처리율이 없습니다. "
                                     f"고를 수 있는 정밀도: {', '.join(p.upper() for p in have)}")
    labels = [devices.peak(key, prec).evidence, devices.entry(key).bandwidth.evidence, evidence.COMPUTED]
    return devices.get(key, prec), labels


def roofline_result(v: dict) -> dict:
    """Roofline of the form's workload on the form's device (values already parsed)."""
    dev, labels = _roofline_device(v)
    if v["mode"] == "mkn":
        w: Workload = linear_layer(v["m"], v["k"], v["n"], v["dtype_bytes"])
    else:
        w = Workload("작업", v["flops"], v["bytes"])
    r = roofline(w, dev)
    ridge = ridge_point(dev)
    bound = f"{r.bound_ko} 한계"
    rows = [
        _row("flops", "연산량 F", fmt_si(w.flops, "FLOP"), w.flops),
        _row("bytes", "이동량 Q", fmt_bytes(w.bytes), w.bytes),
        _row("intensity", "산술 강도 F/Q", f"{fmt_num(w.intensity, 2)} FLOP/B", w.intensity),
        _row("compute_time", "연산 시간 F/P", fmt_time(r.compute_time), r.compute_time),
        _row("memory_time", "메모리 시간 Q/BW", fmt_time(r.memory_time), r.memory_time),
        _row("time", "이상적 시간 max(F/P, Q/BW)", fmt_time(r.time), r.time),
        _row("bound", "한계 자원", bound),
        _row("ridge", "분기점 P/BW", f"{fmt_num(ridge, 1)} FLOP/B", ridge),
        _row("attainable", "도달 가능 처리율 min(P, BW×I)", fmt_si(r.attainable, "FLOP/s"), r.attainable),
        _row("share", "최대 처리율 대비", f"{fmt_num(100 * r.attainable / dev.peak_flops, 1)} %",
             r.attainable / dev.peak_flops),
        _row("evidence", "근거", evidence.weakest(labels)),
    ]
    verdict = (f"{dev.name}에서 이 작업은 {bound}입니다: 산술 강도 {fmt_num(w.intensity, 2)} FLOP/B가 분기점 "
               f"{fmt_num(ridge, 1)} FLOP/B보다 {'크거나 같습니다' if r.bound == 'compute' else '작습니다'}.")
    notes = ["연산과 메모리 이동이 완전히 겹친다고 보는 이상적 시간입니다(커널 실행·컴파일·호스트 전송 제외).",
             "P는 고른 정밀도의 dense 최대 처리율, BW는 주 메모리 대역폭입니다."]
    plot = {"peak": dev.peak_flops, "bandwidth": dev.bandwidth, "ridge": ridge, "intensity": w.intensity,
            "attainable": r.attainable, "device": dev.name,
            "peak_text": f"P = {fmt_si(dev.peak_flops, 'FLOP/s')}", "ridge_text": f"분기점 {fmt_num(ridge, 1)}",
            "point_text": f"{fmt_si(r.attainable, 'FLOP/s')} ({bound})"}
    return {"rows": rows, "verdict": verdict, "notes": notes, "plot": plot}


# ---------------------------------------------------------------- serving
def _model(v: dict) -> Model:
    if v["model"] != "config":
        return models.get(v["model"])
    try:
        cfg = json.loads(v["config"])
    except ValueError as exc:
        raise FormError("config", f"JSON으로 읽을 수 없습니다({exc.lineno}번째 줄, {exc.colno}번째 칸).") from None
    try:
        return Model.from_hf_config(cfg, name="붙여 넣은 config")
    except (ValueError, KeyError, TypeError) as exc:
        raise FormError("config", f"모델 구조로 읽지 못했습니다. Llama·Mistral·Mixtral 형식인지 확인하세요 ({exc}).") from None


def _serving_error(exc: ValueError, m: Model) -> FormError:
    """A Korean message on the right field for what ``serve`` refused."""
    arg = _argument(exc)
    if arg == "tp":
        return FormError("tp", f"TP는 {m.name}의 어텐션 헤드 {m.num_heads}개와 KV 헤드 {m.num_kv_heads}개를 모두 나누어야 "
                               f"합니다. 가능한 값: {', '.join(map(str, m.valid_tp()))}")
    if arg == "pp":
        return FormError("pp", f"PP 단계 수는 {m.name}의 층 수 {m.num_layers} 이하여야 합니다.")
    if arg == "ep":
        if not m.is_moe:
            return FormError("ep", f"{m.name}는 전문가 혼합(MoE) 모델이 아니므로 EP는 1이어야 합니다.")
        ok = [x for x in range(1, m.num_experts + 1) if m.num_experts % x == 0]
        return FormError("ep", f"EP는 층당 전문가 수 {m.num_experts}를 나누어야 합니다. 가능한 값: {', '.join(map(str, ok))}")
    if arg in ("memory", "bandwidth"):
        what = "메모리 용량" if arg == "memory" else "메모리 대역폭"
        return FormError("device", f"카탈로그에 이 장치의 {what}이 없습니다(미공개). 다른 장치를 고르세요.")
    return FormError("", f"이 입력으로는 계산할 수 없습니다. 입력을 확인하세요(xpucalc: {exc}).")


#: The share of the dense peak ``serve`` assumes for prefill (its default ``prefill_mfu``).
PREFILL_MFU = float(inspect.signature(serve).parameters["prefill_mfu"].default)


def _latency_text(r) -> str:
    """The fixed cost per all-reduce the estimate used, with its catalog entry and evidence when it names one."""
    lat = getattr(r, "allreduce_latency_s", ALLREDUCE_LATENCY_S)
    key = getattr(r, "latency_key", None)
    if key is None:
        return fmt_time(lat)
    fig = allreduce_latency_figure(key)
    return f"{fmt_time(lat)}(collective_latency.json의 {key}, {fig['evidence']})"


def serving_result(v: dict) -> dict:
    """``xpucalc.llm.serve`` for the form's model, device and layout, with the memory breakdown and assumptions."""
    m = _model(v)
    try:
        r = serve(m, v["device"], tp=v["tp"], pp=v["pp"], dp=v["dp"], ep=v["ep"], batch=v["batch"],
                  context=v["context"], weight_bytes=float(v["weight_bytes"]), kv_bytes=float(v["kv_bytes"]))
    except ValueError as exc:
        raise _serving_error(exc, m) from None
    mem, dec, hw = r.memory, r.decode, r.hardware
    need = mem.weights + mem.kv_cache
    fits = "들어갑니다" if r.fits else "들어가지 않습니다"
    why = (f"장치당 가중치 {fmt_bytes(mem.weights)} + KV 캐시 {fmt_bytes(mem.kv_cache)} = {fmt_bytes(need)}, "
           f"쓸 수 있는 메모리 {fmt_bytes(mem.usable)}")
    bound = "연산" if dec.bound == "compute" else "메모리"
    rows = [
        _row("fits", "메모리 판정", f"{fits} ({why})"),
        _row("devices", "장치 수 (TP × PP × EP × DP)", f"{r.tp} × {r.pp} × {r.ep} × {r.dp} = {r.n_devices}장", r.n_devices),
        _row("capacity", "장치 메모리 용량", fmt_bytes(mem.capacity), mem.capacity),
        _row("usable", f"쓸 수 있는 메모리 (용량의 {fmt_num(100 * GPU_MEMORY_UTILIZATION, 0)} %)", fmt_bytes(mem.usable),
             mem.usable),
        _row("weights", "장치당 가중치", fmt_bytes(mem.weights), mem.weights),
        _row("kv_cache", f"장치당 KV 캐시 (배치 {r.batch} × {r.context:,} 토큰)", fmt_bytes(mem.kv_cache), mem.kv_cache),
        _row("free", "남는 메모리", fmt_bytes(mem.free), mem.free),
        _row("reserve", "예비분 (컨텍스트·활성값·단편화)", fmt_bytes(mem.reserve), mem.reserve),
        _row("max_batch", f"최대 배치 ({r.context:,} 토큰 시퀀스, 사본 하나)", f"{mem.max_batch:,}", mem.max_batch),
        _row("per_request", "디코드, 요청 하나", f"{fmt_num(r.decode_tokens_per_s_per_request, 2)} 토큰/s",
             r.decode_tokens_per_s_per_request),
        _row("total", "디코드, 전체 (모든 사본)", f"{fmt_num(r.decode_tokens_per_s_total, 1)} 토큰/s",
             r.decode_tokens_per_s_total),
        _row("step", "디코드 한 단계", f"{fmt_time(dec.step_s)} ({bound} 한계)", dec.step_s),
        _row("comm", "그 가운데 집합 통신", fmt_time(dec.comm_s), dec.comm_s),
        _row("prefill", f"프리필 {r.context:,} 토큰",
             "계산하지 않음 (dense 최대 처리율 미공개)" if r.prefill_s is None else fmt_time(r.prefill_s), r.prefill_s),
        _row("evidence", "근거", evidence.COMPUTED),
    ]
    link = "NVLink" if "NVLink" in hw.link_label else "PCIe"
    peak = "dense 최대 처리율 미공개: 디코드는 대역폭 한계로만 계산" if hw.peak_flops is None else \
        f"{(hw.peak_precision or '').upper()} dense 최대 처리율 {fmt_si(hw.peak_flops, 'FLOP/s')}"
    notes = [
        f"모델 {m.name}: 파라미터 {fmt_num(m.n_params / 1e9, 2)}B, 층 {m.num_layers}, 어텐션 헤드 {m.num_heads}, "
        f"KV 헤드 {m.num_kv_heads}" + (f", 전문가 {m.num_experts}개 중 {m.experts_per_token}개 사용" if m.is_moe else ""),
        f"장치 {hw.name}: 용량 {fmt_bytes(hw.memory)}, 대역폭 {fmt_si(hw.bandwidth, 'B/s')}, {peak} (카탈로그).",
        f"엔진이 쓰는 메모리는 용량의 {fmt_num(100 * GPU_MEMORY_UTILIZATION, 0)} %(vLLM 기본값)이고 나머지는 예비분입니다.",
        "디코드 한 단계는 가중치를 한 번, 시퀀스마다 KV 캐시를 한 번 읽습니다(루프라인 상한, 커널 효율 100 %).",
        f"프리필은 dense 최대 처리율의 {fmt_num(100 * PREFILL_MFU, 0)} %(MFU {fmt_num(PREFILL_MFU, 2)})로 계산합니다.",
        "한 사본이 장치 한 장이라 장치 사이 통신은 없습니다." if r.tp * r.pp * r.ep == 1 else
        f"장치 사이 링크는 {link} 한 방향 {fmt_si(hw.link_bandwidth, 'B/s')}, 통신 한 번의 고정비는 "
        f"{_latency_text(r)}입니다.",
    ]
    if m.is_moe:
        notes.append("MoE: 토큰이 전문가에 균등하게 배정된다고 봅니다.")
    if r.pp > 1:
        notes.append(f"PP: 마이크로배치 {r.microbatches}개가 파이프라인에 함께 있고, 토큰 하나는 {r.pp}단계를 차례로 지납니다.")
    if not r.fits:
        notes.append("메모리에 들어가지 않으므로 속도는 들어간다고 가정했을 때의 값입니다.")
    verdict = (f"{m.name}, {hw.name} {r.n_devices}장: 메모리에 {fits}. 요청 하나의 디코드 상한은 "
               f"{fmt_num(r.decode_tokens_per_s_per_request, 2)} 토큰/s입니다.")
    return {"rows": rows, "verdict": verdict, "notes": notes}


# ---------------------------------------------------------------- memo
def memo_result(v: dict) -> dict:
    """The workload memo of lab 03 (``xpucalc.llm.memo.memo``) for the form's values, as text to copy."""
    kw = {k: x for k, x in v.items() if x is not None and x != ""}
    kw["nvlink"] = v["nvlink"] == "true"
    for k in ("bytes_per_param", "kv_bytes"):
        if k in kw:
            kw[k] = float(kw[k])
    report = memo_mod.memo(**kw)
    if report.error:
        err = report.error
        raise FormError(err.argument if err.argument in v else "", err.message)
    rows = [_row(f"memo{i}", item, f"{value} [{basis}]") for i, (item, value, basis) in enumerate(memo_rows(report))]
    return {"rows": rows, "verdict": report.verdict, "notes": memo_notes(report), "notes_title": "메모의 제안과 설명",
            "text": memo_text(report),
            "copy": memo_markdown(report)}


RESULTS = {"roofline": roofline_result, "serving": serving_result, "memo": memo_result}


def run(calc: str, raw: dict[str, str]) -> dict:
    """What the page shows for the form values ``raw`` (strings) of calculator ``calc``; never raises for bad input."""
    values, errors = parse(list(fields(calc)), raw)
    if errors:
        return {"errors": errors, "rows": [], "verdict": "", "notes": []}
    try:
        out = RESULTS[calc](values)
    except FormError as exc:
        return {"errors": {exc.field: exc.message}, "rows": [], "verdict": "", "notes": []}
    except ValueError as exc:  # a refusal no field above maps: said for the whole form
        return {"errors": {"": f"이 입력으로는 계산할 수 없습니다. 입력을 확인하세요(xpucalc: {exc})."}, "rows": [],
                "verdict": "", "notes": []}
    return {"errors": {}, **out}


def run_json(calc: str, raw_json: str) -> str:
    """:func:`run` with JSON in and out: what the page's script calls through Pyodide."""
    return json.dumps(run(calc, json.loads(raw_json)), ensure_ascii=False)


__all__ = ["CUSTOM", "RESULTS", "TITLES", "calculator_html", "dense_precisions", "fields", "memo_result",
           "roofline_result", "run", "run_json", "serving_result"]
