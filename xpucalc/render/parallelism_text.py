"""The Korean words for a parallelism decision: a :class:`xpucalc.llm.parallelism.Plan` as a layout and its reasons.

This module decides nothing; :func:`xpucalc.llm.parallelism.suggest` has already chosen the layout
and recorded each question of the flow with the figures behind its answer. Here each
``Step`` becomes one sentence (``exceeds_all_gpus`` and ``exceeds_tp_groups`` two), and the layout becomes the
short label the reference part's table shows. Memory figures are shown in decimal GB
with one decimal.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..llm.parallelism import Plan, Step

MOE_EP = ("MoE 모델이므로 전문가(expert)를 GPU에 나눠 두는 EP 축을 더하고, "
          "all-to-all에 쓸 대역폭(NVLink/InfiniBand)을 확보해야 합니다.")
TP_BEYOND_NVSWITCH = "TP는 보통 NVSwitch 한 도메인(대개 8 GPU) 안에서만 씁니다."
ADVICE = "양자화로 바이트를 줄이거나, GPU를 늘리거나, CPU/NVMe 오프로드(느림)를 검토하세요."


def _gb(value: float) -> str:
    """Bytes as decimal GB with one decimal and thousands separators (``2,000.0 GB``)."""
    return f"{value / 1e9:,.1f} GB"


def step_sentences(step: Step, serving: bool) -> list[str]:
    """The Korean sentences of one step of the flow (one; the two "cannot fit" steps add ``ADVICE``)."""
    v = step.values
    match step.kind:
        case "fits_one_gpu":
            return [f"필요 메모리 {_gb(v['need'])}가 GPU 한 장({_gb(v['gpu_memory'])})에 들어갑니다."]
        case "single_gpu":
            return ["GPU가 한 장뿐이므로 병렬화할 것이 없습니다."]
        case "replicas":
            return [f"GPU {v['gpus']}장마다 모델 사본을 하나씩 두고 요청을 나눠 받습니다(복제 {v['gpus']}개). "
                    "사본끼리는 통신하지 않으므로 요청 하나의 속도는 GPU 한 장의 속도입니다."]
        case "ddp":
            return [f"GPU {v['gpus']}장에 모델을 통째로 복제하고 배치를 나누는 DDP로 충분합니다 "
                    "(step마다 gradient all-reduce 1회)."]
        case "ddp_across_nodes":
            return ["노드가 여러 개이므로 노드 사이 all-reduce에는 InfiniBand급 네트워크가 필요합니다."]
        case "exceeds_one_gpu":
            return [f"필요 메모리 {_gb(v['need'])}가 GPU 한 장({_gb(v['gpu_memory'])})을 넘습니다."]
        case "exceeds_all_gpus":
            return [f"GPU {v['gpus']}장을 모두 합쳐도 {_gb(v['memory'])}라 모델을 나눠 담을 수 없습니다.",
                    ADVICE]
        case "partial_last_node":
            return [f"GPU {v['gpus']}장은 {v['per_node']}장짜리 노드 {v['nodes']}개를 채우지 못합니다. 같은 구성을 노드마다 "
                    f"반복하려면 노드당 GPU 수가 같아야 하므로, 가득 찬 노드 {v['full_nodes']}개만 쓰는 구성으로 계산합니다."]
        case "tp_in_node":
            why = "헤드 수를 나누는" if v["heads_known"] else "2의 거듭제곱인(흔한 모델의 헤드 수를 나누는)"
            return [f"노드 안 GPU가 NVLink로 연결되어 있으므로 층 안을 나누는 TP로 묶습니다. TP는 {why} "
                    f"값이어야 하므로 TP = {v['tp']}입니다."]
        case "pp_in_node":
            return [f"TP {v['tp']}장에 한 벌이 들어가지 않아 PP = {v['pp']}단계로 층을 나눕니다."]
        case "copies_in_node":
            return [f"남는 GPU로 같은 구성을 {v['copies']}벌 둡니다" + ("(사본마다 다른 요청)." if serving else "(데이터 병렬).")]
        case "no_nvlink_pp":
            return ["NVLink가 없으면 TP는 층마다 두 번의 all-reduce를 PCIe로 주고받아야 하므로, 이 흐름은 단계 경계에서만 "
                    f"활성값을 넘기는 PP로 층 묶음을 GPU {v['gpus']}장에 나눕니다. 요청 하나는 단계를 차례로 지나가므로 "
                    "PP는 메모리를 넓힐 뿐 요청 하나를 빠르게 하지는 않습니다. 요청 하나의 속도를 TP와 견주려면 "
                    "xpucalc.llm.serve로 두 구성을 계산해 보세요."]
        case "no_nvlink_fsdp":
            return ["NVLink가 없어 층마다 all-reduce가 필요한 TP는 PCIe로는 느립니다. "
                    f"파라미터를 GPU {v['gpus']}장에 나눠 두는 FSDP(ZeRO-3), 또는 층 묶음을 나누는 PP를 씁니다."]
        case "several_nodes":
            return [f"노드가 {v['nodes']}개이므로 노드 사이 통신은 InfiniBand(RDMA)가 사실상 필수입니다."]
        case "tp_inside_node":
            return [f"TP는 NVLink가 닿는 노드 안(TP = {v['tp']})에 두고, 노드 사이에는 통신이 적은 축을 둡니다."]
        case "replica_per_node":
            return [f"노드 하나({_gb(v['node_memory'])})에 한 벌이 들어가므로 노드마다 사본을 하나씩 두고 "
                    f"요청을 나눠 받습니다(사본 {v['nodes']}개)."]
        case "dp_across_nodes":
            return [f"노드 하나({_gb(v['node_memory'])})에 한 벌이 들어가므로 노드마다 한 벌씩 두고 "
                    f"노드 사이는 데이터 병렬(또는 FSDP) {v['nodes']}으로 나눕니다."]
        case "exceeds_tp_groups":
            return [f"노드마다 TP 묶음 하나(GPU {v['tp']}장)를 두는 이 흐름으로는 노드 {v['nodes']}개를 합쳐도 "
                    f"{_gb(v['memory'])}라 모델을 나눠 담을 수 없습니다.",
                    ADVICE]
        case "pipeline_of_nodes":
            pp, dp = v["pp"], v["dp"]
            text = (f"한 벌이 노드 하나({_gb(v['node_memory'])})를 넘으므로 노드 {pp}개를 파이프라인 단계로 "
                    f"잇습니다(PP = {pp}).")
            if dp > 1:
                text += (f" 이런 파이프라인을 {dp}벌 두어 요청을 나눠 받습니다." if serving else
                         f" 이런 파이프라인을 {dp}벌 두어 데이터 병렬 {dp}로 나눕니다.")
            if serving:
                text += " 요청 하나는 단계를 차례로 지나가므로 PP는 요청 하나의 속도를 높이지 않습니다."
            return [text]
        case "no_nvlink_pp_across_nodes":
            return ["NVLink가 없어 TP는 쓰지 않고, 층 묶음을 GPU마다 나누는 PP를 씁니다."]
        case "no_nvlink_fsdp_across_nodes":
            return ["NVLink가 없어 TP는 쓰지 않고, 전체 GPU에 파라미터를 나누는 FSDP(ZeRO-3)나 노드 간 PP를 씁니다."]
        case "moe_adds_ep":
            return [MOE_EP]
        case "tp_beyond_nvswitch":
            return [TP_BEYOND_NVSWITCH]
    raise ValueError(f"step.kind {step.kind!r} has no Korean sentence; add a case to step_sentences")


def label(plan: Plan) -> str:
    """The layout's short Korean label, without the EP suffix."""
    p = plan
    match p.layout:
        case "single_gpu":
            return "단일 GPU (병렬화 없음)"
        case "replicas":
            return f"복제 서빙 (사본 {p.dp}개, 사본당 GPU 1장)"
        case "ddp":
            return f"DDP (데이터 병렬 {p.dp})"
        case "impossible":
            return "현재 구성으로는 불가능 (메모리 부족)"
        case "impossible_full_nodes":
            return "현재 구성으로는 불가능 (가득 찬 노드의 메모리 부족)"
        case "impossible_tp_groups":
            return "현재 구성으로는 불가능 (노드마다 TP 묶음 하나로는 메모리 부족)"
        case "tp_in_node":
            copies = (f", 사본 {p.dp}개" if p.goal == "serving" else f", DP = {p.dp}") if p.dp > 1 else ""
            return f"TP = {p.tp}" + (f", PP = {p.pp}" if p.pp > 1 else "") + copies + " (노드 내 NVLink)"
        case "pp_in_node":
            return f"PP = {p.pp} (PCIe)"
        case "fsdp_or_pp_in_node":
            return f"FSDP (샤딩 {p.dp}) 또는 PP = {p.dp}"
        case "tp_node_replicas":
            return f"노드 내 TP = {p.tp}, 노드마다 사본 1개 (사본 {p.dp}개)"
        case "tp_node_dp":
            return f"노드 내 TP = {p.tp}, 노드 간 DP/FSDP = {p.dp}"
        case "tp_node_pp":
            return f"노드 내 TP = {p.tp}, 노드 간 PP = {p.pp}" + (f", DP = {p.dp}" if p.dp > 1 else "")
        case "pp_across_nodes":
            return f"PP = {p.pp}" + (f", 사본 {p.dp}개" if p.dp > 1 else "")
        case "fsdp_or_pp_across_nodes":
            return f"FSDP (샤딩 {p.dp}) 또는 노드 간 PP"
    raise ValueError(f"plan.layout {p.layout!r} has no Korean label; add a case to label")


@dataclass(frozen=True)
class Narration:
    """A plan in Korean: the layout's label, the reasons in the flow's order, and the caveats."""

    strategy: str
    reasons: tuple[str, ...]
    warnings: tuple[str, ...]

    def __str__(self) -> str:
        return self.strategy


def sentences(steps: tuple[Step, ...], goal: str) -> tuple[str, ...]:
    """The Korean sentences of ``steps`` in order (a step may give two)."""
    return tuple(text for st in steps for text in step_sentences(st, goal == "serving"))


def strategy(plan: Plan) -> str:
    """The layout's short Korean label, e.g. ``"노드 내 TP = 8, 노드 간 PP = 2"`` (+ ``" + EP (전문가 병렬)"`` for MoE)."""
    return label(plan) + (" + EP (전문가 병렬)" if plan.ep else "")


def narrate(plan: Plan) -> Narration:
    """The whole plan in Korean: label, reasons, warnings."""
    return Narration(strategy(plan), sentences(plan.steps, plan.goal), sentences(plan.warnings, plan.goal))


__all__ = ["ADVICE", "MOE_EP", "Narration", "TP_BEYOND_NVSWITCH", "label", "narrate", "sentences", "step_sentences",
           "strategy"]
