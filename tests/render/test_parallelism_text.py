"""xpucalc.render.parallelism_text: each step and layout of a parallelism plan in Korean.

Plans are built by hand here (not by ``suggest``), so each sentence is checked on its own; the sentences of real
plans, case by case, are in tests/llm/test_parallelism.py.
"""
import typing

import pytest

from xpucalc.llm.parallelism import LayoutKind, Plan, Step, StepKind
from xpucalc.render import parallelism_text as pt

#: Figures for every kind of step, so that each sentence can be produced.
VALUES = {"need": 1234.56e9, "gpu_memory": 80e9, "gpus": 12, "memory": 960e9, "per_node": 8, "nodes": 2,
          "full_nodes": 1, "tp": 4, "heads_known": True, "pp": 3, "copies": 2, "node_memory": 640e9, "dp": 2,
          "gpus_in_node": 12}


@pytest.mark.parametrize("kind", typing.get_args(StepKind))
@pytest.mark.parametrize("goal", ["training", "serving"])
def test_every_step_kind_has_korean_sentences(kind, goal):
    said = pt.sentences((Step(kind, VALUES),), goal)
    assert said and all(s.strip().endswith(".") for s in said)
    assert all(any("가" <= ch <= "힣" for ch in s) for s in said)       # Korean, not a key name


@pytest.mark.parametrize("layout", typing.get_args(LayoutKind))
def test_every_layout_kind_has_a_label(layout):
    label = pt.label(Plan(layout, "training", (), tp=2, pp=3, dp=4))
    assert label and "{" not in label


def test_sentences_by_hand():
    # 1,234.56 GB -> one decimal with thousands separators; 80 GB -> "80.0 GB"
    assert pt.sentences((Step("exceeds_one_gpu", {"need": 1234.56e9, "gpu_memory": 80e9}),), "training") == (
        "필요 메모리 1,234.6 GB가 GPU 한 장(80.0 GB)을 넘습니다.",)
    # the same step reads differently for serving and for training
    copies = Step("copies_in_node", {"copies": 2})
    assert pt.sentences((copies,), "serving") == ("남는 GPU로 같은 구성을 2벌 둡니다(사본마다 다른 요청).",)
    assert pt.sentences((copies,), "training") == ("남는 GPU로 같은 구성을 2벌 둡니다(데이터 병렬).",)
    pipe = Step("pipeline_of_nodes", {"node_memory": 640e9, "pp": 2, "dp": 1})
    assert pt.sentences((pipe,), "training") == (
        "한 벌이 노드 하나(640.0 GB)를 넘으므로 노드 2개를 파이프라인 단계로 잇습니다(PP = 2).",)
    # a step that cannot fit adds the advice
    assert pt.sentences((Step("exceeds_all_gpus", {"gpus": 2, "memory": 48e9}),), "training") == (
        "GPU 2장을 모두 합쳐도 48.0 GB라 모델을 나눠 담을 수 없습니다.", pt.ADVICE)
    assert pt.step_sentences(Step("moe_adds_ep"), False) == [pt.MOE_EP]


def test_labels_and_the_narration_by_hand():
    plan = Plan("tp_in_node", "serving", (Step("tp_in_node", {"tp": 4, "heads_known": False}),),
                warnings=(Step("tp_beyond_nvswitch", {"gpus_in_node": 12}),), tp=4, pp=3, dp=2, ep=True)
    told = pt.narrate(plan)
    assert told.strategy == "TP = 4, PP = 3, 사본 2개 (노드 내 NVLink) + EP (전문가 병렬)" == str(told)
    assert told.reasons == ("노드 안 GPU가 NVLink로 연결되어 있으므로 층 안을 나누는 TP로 묶습니다. TP는 2의 거듭제곱인"
                            "(흔한 모델의 헤드 수를 나누는) 값이어야 하므로 TP = 4입니다.",)
    assert told.warnings == (pt.TP_BEYOND_NVSWITCH,)
    training = Plan("tp_in_node", "training", (), tp=8, dp=2)
    assert pt.strategy(training) == "TP = 8, DP = 2 (노드 내 NVLink)"
    assert pt.label(Plan("fsdp_or_pp_in_node", "training", (), dp=4, fsdp=True)) == "FSDP (샤딩 4) 또는 PP = 4"


def test_an_unknown_kind_is_named():
    with pytest.raises(ValueError, match=r"^step\.kind 'nope' has no Korean sentence"):
        pt.step_sentences(Step("nope"), False)
    with pytest.raises(ValueError, match=r"^plan\.layout 'nope' has no Korean label"):
        pt.label(Plan("nope", "training", ()))
