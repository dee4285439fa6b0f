"""xpucalc.llm.parallelism: the ring schedule worked out by hand, the pipeline formulas, and every branch of the
decision flow ``suggest`` with its whole answer.

``suggest`` returns a :class:`Plan` (layout, degrees, the steps behind each choice) and
``xpucalc.render.parallelism_text.narrate`` words it; each case below checks both at once through ``suggested``,
as the reader sees them: the layout (tp, pp, dp, fsdp, ep, feasible) and the label are derived by hand in the
comment above the case; the reasons are the flow's sentences with the hand-derived numbers filled in. Boundary
cases: exact fits (need == one GPU, == all GPUs, == one node, == the TP group), head counts that only one of two
divisors divides, an odd GPU count, a partly filled last node. The sentences one by one are tested in
tests/render/test_parallelism_text.py.
"""
import dataclasses
import itertools
import typing

import pytest

from xpucalc import llm
from xpucalc.llm import parallelism as par
from xpucalc.render.parallelism_text import narrate

GB = 1e9


@dataclasses.dataclass(frozen=True)
class Suggested:
    """A plan's degrees and its Korean narration side by side."""

    strategy: str
    reasons: tuple[str, ...]
    feasible: bool
    tp: int
    pp: int
    dp: int
    fsdp: bool
    ep: bool
    warnings: tuple[str, ...]

    def __str__(self) -> str:
        return self.strategy


def suggested(*args, **kwargs) -> Suggested:
    """``par.suggest(*args, **kwargs)`` and its narration, as the reference part's table shows them."""
    plan = par.suggest(*args, **kwargs)
    told = narrate(plan)
    return Suggested(told.strategy, told.reasons, plan.feasible, plan.tp, plan.pp, plan.dp, plan.fsdp, plan.ep,
                     told.warnings)


# --- ring all-reduce, step by step -------------------------------------------------------------------------------
def test_ring_of_three_ranks_step_by_step():
    # n = 3. Reduce-scatter step s: rank r sends chunk (r - s + 1) mod 3 to r + 1, which adds it to its own.
    #   s=1: 0->1 chunk 0, 1->2 chunk 1, 2->0 chunk 2
    #   s=2: 0->1 chunk 2, 1->2 chunk 0, 2->0 chunk 1   (rank r now owns the full sum of chunk r + 1)
    # All-gather step s: rank r forwards chunk (r - s + 2) mod 3, which the receiver stores.
    #   s=1: 0->1 chunk 1, 1->2 chunk 2, 2->0 chunk 0
    #   s=2: 0->1 chunk 0, 1->2 chunk 1, 2->0 chunk 2
    steps = par.ring_allreduce_steps(3)
    assert [(s.phase, s.index) for s in steps] == [("start", 0), ("reduce-scatter", 1), ("reduce-scatter", 2),
                                                   ("all-gather", 1), ("all-gather", 2)]
    assert [s.sends for s in steps] == [
        (),
        ((0, 1, 0), (1, 2, 1), (2, 0, 2)),
        ((0, 1, 2), (1, 2, 0), (2, 0, 1)),
        ((0, 1, 1), (1, 2, 2), (2, 0, 0)),
        ((0, 1, 0), (1, 2, 1), (2, 0, 2)),
    ]
    f = frozenset
    everyone = f({0, 1, 2})
    # start: every rank holds only its own contribution to every chunk
    assert steps[0].holdings == tuple(tuple(f({r}) for _ in range(3)) for r in range(3))
    # after reduce-scatter 1: rank 1 chunk 0 = {0, 1}, rank 2 chunk 1 = {1, 2}, rank 0 chunk 2 = {2, 0}
    assert steps[1].holdings == ((f({0}), f({0}), f({0, 2})),
                                 (f({0, 1}), f({1}), f({1})),
                                 (f({2}), f({1, 2}), f({2})))
    # after reduce-scatter 2: rank 1 chunk 2 = {1} | {0, 2}; rank 2 chunk 0 = {2} | {0, 1}; rank 0 chunk 1 = {0} | {1, 2}
    assert steps[2].holdings == ((f({0}), everyone, f({0, 2})),
                                 (f({0, 1}), f({1}), everyone),
                                 (everyone, f({1, 2}), f({2})))
    # all-gather 1 copies the finished chunks one rank on: rank 1 chunk 1, rank 2 chunk 2, rank 0 chunk 0
    assert steps[3].holdings == ((everyone, everyone, f({0, 2})),
                                 (f({0, 1}), everyone, everyone),
                                 (everyone, f({1, 2}), everyone))
    assert steps[4].holdings == tuple(tuple(everyone for _ in range(3)) for _ in range(3))


def test_ring_of_two_ranks_is_the_smallest():
    # n = 2: one reduce-scatter step (0 sends chunk 0, 1 sends chunk 1), one all-gather step (0 sends 1, 1 sends 0)
    steps = par.ring_allreduce_steps(2)
    assert [s.sends for s in steps] == [(), ((0, 1, 0), (1, 0, 1)), ((0, 1, 1), (1, 0, 0))]
    with pytest.raises(ValueError, match=r"^n_ranks must be a whole number"):
        par.ring_allreduce_steps(2.5)
    with pytest.raises(ValueError, match=r"^n_ranks must be a whole number"):
        par.ring_allreduce_steps(0)


def test_one_rank_has_nothing_to_send():
    # n = 1: the start state alone, the rank holding its own (already complete) sum -- 0 steps, 0 bytes,
    # as xpucalc.llm.comm.allreduce_traffic_bytes(size, 1) == 0
    (start,) = par.ring_allreduce_steps(1)
    assert (start.phase, start.index, start.sends, start.holdings) == ("start", 0, (), ((frozenset({0}),),))


def test_ring_schedule_matches_the_formula():
    steps = par.ring_allreduce_steps(4)
    assert len(steps) == 1 + 2 * 3
    everyone = frozenset(range(4))
    after_rs = steps[3].holdings
    for r in range(4):
        assert after_rs[r][(r + 1) % 4] == everyone  # rank r owns the sum of chunk r+1
    for r in range(4):
        assert all(c == everyone for c in steps[-1].holdings[r])
    # each rank sends one chunk of S/4 per step: 6 steps x S/4 = 1.5 S = 2 (n-1)/n S
    sent = sum(1 for s in steps for src, _, _ in s.sends if src == 0)
    assert sent / 4 == pytest.approx(2 * 3 / 4) == llm.allreduce_traffic_bytes(1.0, 4)


# --- pipeline bubble, 3D layout ----------------------------------------------------------------------------------
def test_pipeline_bubble_and_3d_layout():
    # (p - 1) / (m + p - 1): p = 3, m = 5 -> 2/7; p = 2, m = 1 -> 1/2
    assert par.pipeline_bubble_fraction(3, 5) == pytest.approx(2 / 7)
    # 4 stages, 4 micro-batches: 3/7 idle; 4 stages, 32 micro-batches: 3/35; one stage never idles
    assert par.pipeline_bubble_fraction(4, 4) == pytest.approx(3 / 7)
    assert par.pipeline_bubble_fraction(4, 32) == pytest.approx(3 / 35)
    assert par.pipeline_bubble_fraction(1, 8) == 0
    assert par.pipeline_bubble_fraction(2, 1) == pytest.approx(0.5)
    with pytest.raises(ValueError, match=r"^stages must be a whole number"):
        par.pipeline_bubble_fraction(0, 4)
    with pytest.raises(ValueError, match=r"^microbatches must be a whole number"):
        par.pipeline_bubble_fraction(4, 0)
    assert par.gpus_3d(2, 3, 5) == 30
    assert par.gpus_3d(8, 16, 128) == 16_384
    for args, name in (((0, 1, 1), "tp"), ((1, 0, 1), "pp"), ((1, 1, 0), "dp")):
        with pytest.raises(ValueError, match=rf"^{name} must be a whole number"):
            par.gpus_3d(*args)


# --- the decision as data --------------------------------------------------------------------------------------------
def test_the_plan_holds_the_figures_behind_each_choice():
    # 1,000 GB over 80 GB GPUs, 8 per node, 4 nodes, NVLink, MoE, serving: one node holds 640 GB < 1,000, so
    # ceil(1000 / 640) = 2 nodes per pipeline, 4 / 2 = 2 pipelines; EP added for the MoE
    plan = par.suggest(1000 * GB, 80 * GB, 8, 4, True, True, goal="serving")
    assert (plan.layout, plan.goal, plan.feasible, plan.tp, plan.pp, plan.dp, plan.fsdp, plan.ep) == (
        "tp_node_pp", "serving", True, 8, 2, 2, False, True)
    assert [(st.kind, dict(st.values)) for st in plan.steps] == [
        ("exceeds_one_gpu", {"need": 1000e9, "gpu_memory": 80e9}),
        ("several_nodes", {"nodes": 4}),
        ("tp_inside_node", {"tp": 8}),
        ("pipeline_of_nodes", {"node_memory": 640e9, "pp": 2, "dp": 2}),
        ("moe_adds_ep", {})]
    assert plan.warnings == ()
    # 700 GB on one node of 12: TP 8 (a power of two) holds 640 GB x 1 group < 700, so TP 4 (3 groups, 960 GB);
    # ceil(700 / 320) = 3 stages; the node is wider than one NVSwitch domain of 8
    plan = par.suggest(700 * GB, 80 * GB, 12, 1, True, False)
    assert [(st.kind, dict(st.values)) for st in plan.steps] == [
        ("exceeds_one_gpu", {"need": 700e9, "gpu_memory": 80e9}),
        ("tp_in_node", {"tp": 4, "heads_known": False}),
        ("pp_in_node", {"tp": 4, "pp": 3})]
    assert [(w.kind, dict(w.values)) for w in plan.warnings] == [("tp_beyond_nvswitch", {"gpus_in_node": 12})]
    # 12 GPUs as 8 + 4: the partly filled node is left out and one full node of 8 is planned
    plan = par.suggest(300 * GB, 80 * GB, 8, 2, True, False, n_gpus=12)
    assert dict(plan.steps[1].values) == {"gpus": 12, "per_node": 8, "nodes": 2, "full_nodes": 1}


def test_every_step_and_layout_kind_is_reached_and_named():
    steps, layouts = set(), set()
    for need in (14, 80, 140, 150, 160, 300, 700, 1000, 1400, 2000):
        for g, nodes, n_gpus in ((1, 1, None), (4, 1, None), (8, 1, None), (12, 1, None), (8, 2, None), (8, 4, None),
                                 (16, 4, None), (8, 2, 12), (8, 3, 20)):
            for nvlink, goal, heads in itertools.product((True, False), ("training", "serving"), (None, (12, 8))):
                plan = par.suggest(need * GB, 80 * GB, g, nodes, nvlink, need == 1000, goal=goal, n_gpus=n_gpus,
                                   heads=heads)
                steps |= {st.kind for st in plan.steps + plan.warnings}
                layouts.add(plan.layout)
                assert all(isinstance(v, (int, float)) for st in plan.steps for v in st.values.values())
    assert steps == set(typing.get_args(par.StepKind))
    assert layouts == set(typing.get_args(par.LayoutKind))


def test_suggest_heads_that_keep_tp_small_can_leave_the_nodes_short():
    # heads (12, 8) allow TP 4 at most of a node's 16 GPUs (16 and 8 do not divide 12); one TP group per node holds
    # 4 x 80 = 320 GB, 4 nodes 1,280 GB < 1,400 GB: no layout of this flow fits (it used to loop for ever looking
    # for a divisor of 4 nodes >= 5 stages)
    check(suggested(1400 * GB, 80 * GB, 16, 4, True, False, heads=(12, 8)),
          expect("현재 구성으로는 불가능 (노드마다 TP 묶음 하나로는 메모리 부족)",
                 [over("1,400.0 GB", "80.0 GB"), "노드가 4개이므로 노드 사이 통신은 InfiniBand(RDMA)가 사실상 필수입니다.",
                  "TP는 NVLink가 닿는 노드 안(TP = 4)에 두고, 노드 사이에는 통신이 적은 축을 둡니다.",
                  "노드마다 TP 묶음 하나(GPU 4장)를 두는 이 흐름으로는 노드 4개를 합쳐도 1,280.0 GB라 모델을 나눠 담을 수 "
                  "없습니다.", "양자화로 바이트를 줄이거나, GPU를 늘리거나, CPU/NVMe 오프로드(느림)를 검토하세요."],
                 feasible=False))
    # 1,280 GB exactly still fits: 4 stages of one node each
    assert suggested(1280 * GB, 80 * GB, 16, 4, True, False, heads=(12, 8)).pp == 4


# --- the decision flow, whole answers ----------------------------------------------------------------------------
def expect(strategy, reasons, *, feasible=True, tp=1, pp=1, dp=1, fsdp=False, ep=False, warnings=()):
    return dict(strategy=strategy, reasons=tuple(reasons), feasible=feasible, tp=tp, pp=pp, dp=dp, fsdp=fsdp, ep=ep,
                warnings=tuple(warnings))


def check(s, want):
    assert dataclasses.asdict(s) == want
    assert all(type(getattr(s, k)) is int for k in ("tp", "pp", "dp"))
    assert str(s) == want["strategy"]


MOE = "MoE 모델이므로 전문가(expert)를 GPU에 나눠 두는 EP 축을 더하고, all-to-all에 쓸 대역폭(NVLink/InfiniBand)을 확보해야 합니다."


TP_WARN = "TP는 보통 NVSwitch 한 도메인(대개 8 GPU) 안에서만 씁니다."


POW2 = "2의 거듭제곱인(흔한 모델의 헤드 수를 나누는)"


def fits(need, mem):
    return f"필요 메모리 {need}가 GPU 한 장({mem})에 들어갑니다."


def over(need, mem):
    return f"필요 메모리 {need}가 GPU 한 장({mem})을 넘습니다."


def tp_reason(why, t):
    return f"노드 안 GPU가 NVLink로 연결되어 있으므로 층 안을 나누는 TP로 묶습니다. TP는 {why} 값이어야 하므로 TP = {t}입니다."
def test_suggest_single_gpu():
    check(suggested(14 * GB, 80 * GB, 1, 1, False, False),
          expect("단일 GPU (병렬화 없음)", [fits("14.0 GB", "80.0 GB"), "GPU가 한 장뿐이므로 병렬화할 것이 없습니다."]))


def test_suggest_replicas_for_serving_at_an_exact_fit():
    # need == one GPU's memory still fits (<=): 4 independent copies
    check(suggested(80 * GB, 80 * GB, 4, 1, True, False, goal="serving"),
          expect("복제 서빙 (사본 4개, 사본당 GPU 1장)",
                 [fits("80.0 GB", "80.0 GB"),
                  "GPU 4장마다 모델 사본을 하나씩 두고 요청을 나눠 받습니다(복제 4개). "
                  "사본끼리는 통신하지 않으므로 요청 하나의 속도는 GPU 한 장의 속도입니다."], dp=4))


def test_suggest_ddp_one_node_and_two_nodes():
    ddp = "GPU {}장에 모델을 통째로 복제하고 배치를 나누는 DDP로 충분합니다 (step마다 gradient all-reduce 1회)."
    check(suggested(14 * GB, 80 * GB, 8, 1, True, False),
          expect("DDP (데이터 병렬 8)", [fits("14.0 GB", "80.0 GB"), ddp.format(8)], dp=8))
    check(suggested(14 * GB, 80 * GB, 8, 2, True, False),
          expect("DDP (데이터 병렬 16)", [fits("14.0 GB", "80.0 GB"), ddp.format(16),
                                        "노드가 여러 개이므로 노드 사이 all-reduce에는 InfiniBand급 네트워크가 필요합니다."],
                 dp=16))


def test_suggest_moe_adds_ep_to_a_feasible_layout_only():
    check(suggested(14 * GB, 80 * GB, 8, 1, True, True),
          expect("DDP (데이터 병렬 8) + EP (전문가 병렬)",
                 [fits("14.0 GB", "80.0 GB"),
                  "GPU 8장에 모델을 통째로 복제하고 배치를 나누는 DDP로 충분합니다 (step마다 gradient all-reduce 1회).",
                  MOE], dp=8, ep=True))
    # 2,000 GB on 2 x 24 GB = 48 GB: impossible, and no EP is suggested for an impossible layout
    check(suggested(2000 * GB, 24 * GB, 2, 1, False, True),
          expect("현재 구성으로는 불가능 (메모리 부족)",
                 [over("2,000.0 GB", "24.0 GB"), "GPU 2장을 모두 합쳐도 48.0 GB라 모델을 나눠 담을 수 없습니다.",
                  "양자화로 바이트를 줄이거나, GPU를 늘리거나, CPU/NVMe 오프로드(느림)를 검토하세요."], feasible=False))


def test_suggest_pcie_node_exact_fit_on_all_gpus():
    # 160 GB == 2 x 80 GB: fits when sharded over both (need > all GPUs is the impossible case, not >=)
    check(suggested(160 * GB, 80 * GB, 2, 1, False, False),
          expect("FSDP (샤딩 2) 또는 PP = 2",
                 [over("160.0 GB", "80.0 GB"),
                  "NVLink가 없어 층마다 all-reduce가 필요한 TP는 PCIe로는 느립니다. "
                  "파라미터를 GPU 2장에 나눠 두는 FSDP(ZeRO-3), 또는 층 묶음을 나누는 PP를 씁니다."],
                 dp=2, fsdp=True))


def test_suggest_pcie_node_serving_is_pp():
    check(suggested(140 * GB, 48 * GB, 4, 1, False, False, goal="serving"),
          expect("PP = 4 (PCIe)",
                 [over("140.0 GB", "48.0 GB"),
                  "NVLink가 없으면 TP는 층마다 두 번의 all-reduce를 PCIe로 주고받아야 하므로, 이 흐름은 단계 경계에서만 "
                  "활성값을 넘기는 PP로 층 묶음을 GPU 4장에 나눕니다. 요청 하나는 단계를 차례로 지나가므로 "
                  "PP는 메모리를 넓힐 뿐 요청 하나를 빠르게 하지는 않습니다. 요청 하나의 속도를 TP와 견주려면 "
                  "xpucalc.llm.serve로 두 구성을 계산해 보세요."], pp=4))


def test_suggest_tp_divides_both_head_counts():
    # heads (12, 8), 8 GPUs: t = 8 (12 % 8 != 0), 7, 6 (8 % 6 != 0), 5 fail; t = 4 divides both.
    # 150 GB <= 80 x 4 x 2 = 640 -> TP stays 4; 150 <= 80 x 4 = 320 -> no PP; 8 // 4 = 2 copies.
    check(suggested(150 * GB, 80 * GB, 8, 1, True, False, heads=(12, 8)),
          expect("TP = 4, DP = 2 (노드 내 NVLink)",
                 [over("150.0 GB", "80.0 GB"), tp_reason("헤드 수를 나누는", 4), "남는 GPU로 같은 구성을 2벌 둡니다(데이터 병렬)."],
                 tp=4, dp=2))
    check(suggested(150 * GB, 80 * GB, 8, 1, True, False, goal="serving", heads=(12, 8)),
          expect("TP = 4, 사본 2개 (노드 내 NVLink)",
                 [over("150.0 GB", "80.0 GB"), tp_reason("헤드 수를 나누는", 4),
                  "남는 GPU로 같은 구성을 2벌 둡니다(사본마다 다른 요청)."], tp=4, dp=2))
    # 400 GB: 400 > 80 x 4 = 320 -> PP = ceil(400 / 320) = 2 stages, 2 divides 8 // 4 = 2 -> DP = 1
    check(suggested(400 * GB, 80 * GB, 8, 1, True, False, heads=(12, 8)),
          expect("TP = 4, PP = 2 (노드 내 NVLink)",
                 [over("400.0 GB", "80.0 GB"), tp_reason("헤드 수를 나누는", 4),
                  "TP 4장에 한 벌이 들어가지 않아 PP = 2단계로 층을 나눕니다."], tp=4, pp=2))


def test_suggest_tp_shrinks_to_one_and_pp_rounds_up_to_a_divisor():
    # heads (6, 3): t = 8, 7, 6 (3 % 6 != 0), 5, 4 fail; t = 3. 3 x (8 // 3) = 6 GPUs hold 480 GB < 500 GB,
    # so t -> 3 // 2 = 1; PP = ceil(500 / 80) = 7 does not divide 8 -> 8 stages, DP = 1
    check(suggested(500 * GB, 80 * GB, 8, 1, True, False, heads=(6, 3)),
          expect("TP = 1, PP = 8 (노드 내 NVLink)",
                 [over("500.0 GB", "80.0 GB"), tp_reason("헤드 수를 나누는", 1),
                  "TP 1장에 한 벌이 들어가지 않아 PP = 8단계로 층을 나눕니다."], pp=8))


def test_suggest_tp_halves_at_an_exact_fit_of_the_group():
    # 6 GPUs, heads unknown: t = 4 (power of two); 4 x (6 // 4) = 4 GPUs hold 320 GB < 480 GB -> t = 2;
    # 2 x 3 = 6 GPUs hold exactly 480 GB -> stays 2 (> not >=). PP = ceil(480 / 160) = 3, DP = 1.
    check(suggested(480 * GB, 80 * GB, 6, 1, True, False),
          expect("TP = 2, PP = 3 (노드 내 NVLink)",
                 [over("480.0 GB", "80.0 GB"), tp_reason(POW2, 2),
                  "TP 2장에 한 벌이 들어가지 않아 PP = 3단계로 층을 나눕니다."], tp=2, pp=3))
    # 3 GPUs: t = 2 on 2 GPUs holds 160 < 170 GB -> t = 1; PP = ceil(170 / 80) = 3 on all three
    check(suggested(170 * GB, 80 * GB, 3, 1, True, False),
          expect("TP = 1, PP = 3 (노드 내 NVLink)",
                 [over("170.0 GB", "80.0 GB"), tp_reason(POW2, 1),
                  "TP 1장에 한 벌이 들어가지 않아 PP = 3단계로 층을 나눕니다."], pp=3))
    # one node given as 8 GPUs but only 6 of them in use: planned on the 6 (no partly-filled-node reduction)
    s = suggested(150 * GB, 80 * GB, 8, 1, True, False, n_gpus=6)
    assert s.feasible and (s.tp, s.pp, s.dp, s.strategy) == (4, 1, 1, "TP = 4 (노드 내 NVLink)")
    # 5 GPUs: the largest power of two <= 5 is 4; 150 GB fit 4 x 80 = 320 -> TP = 4 on 4 GPUs, one idle
    check(suggested(150 * GB, 80 * GB, 5, 1, True, False),
          expect("TP = 4 (노드 내 NVLink)", [over("150.0 GB", "80.0 GB"), tp_reason(POW2, 4)], tp=4))


def test_suggest_more_than_eight_gpus_in_one_node_warns():
    # 12 GPUs: t = 8 on 8 GPUs holds 640 < 700 GB -> t = 4: 4 x 3 = 12 GPUs hold 960 GB; PP = ceil(700/320) = 3
    check(suggested(700 * GB, 80 * GB, 12, 1, True, False),
          expect("TP = 4, PP = 3 (노드 내 NVLink)",
                 [over("700.0 GB", "80.0 GB"), tp_reason(POW2, 4),
                  "TP 4장에 한 벌이 들어가지 않아 PP = 3단계로 층을 나눕니다."], tp=4, pp=3, warnings=[TP_WARN]))
    # 9 GPUs (> 8) warn too; TP = 8 holds 300 GB; serving with one copy says no "사본"
    check(suggested(300 * GB, 80 * GB, 9, 1, True, False, goal="serving"),
          expect("TP = 8 (노드 내 NVLink)", [over("300.0 GB", "80.0 GB"), tp_reason(POW2, 8)], tp=8,
                 warnings=[TP_WARN]))
    # exactly 8: no warning
    assert suggested(300 * GB, 80 * GB, 8, 1, True, False).warnings == ()


IB = "노드가 {}개이므로 노드 사이 통신은 InfiniBand(RDMA)가 사실상 필수입니다."
TP_NODE = "TP는 NVLink가 닿는 노드 안(TP = {})에 두고, 노드 사이에는 통신이 적은 축을 둡니다."


def test_suggest_multi_node_tp_inside_dp_across():
    # 640 GB == one node of 8 x 80 GB: fits the node exactly -> one copy per node
    check(suggested(640 * GB, 80 * GB, 8, 2, True, False),
          expect("노드 내 TP = 8, 노드 간 DP/FSDP = 2",
                 [over("640.0 GB", "80.0 GB"), IB.format(2), TP_NODE.format(8),
                  "노드 하나(640.0 GB)에 한 벌이 들어가므로 노드마다 한 벌씩 두고 노드 사이는 데이터 병렬(또는 FSDP) 2으로 나눕니다."],
                 tp=8, dp=2))
    check(suggested(640 * GB, 80 * GB, 8, 3, True, False, goal="serving"),
          expect("노드 내 TP = 8, 노드마다 사본 1개 (사본 3개)",
                 [over("640.0 GB", "80.0 GB"), IB.format(3), TP_NODE.format(8),
                  "노드 하나(640.0 GB)에 한 벌이 들어가므로 노드마다 사본을 하나씩 두고 요청을 나눠 받습니다(사본 3개)."],
                 tp=8, dp=3))


def test_suggest_multi_node_tp_follows_the_heads():
    # heads (12, 8): TP = 4 inside each node of 8 (see above), node copy = 4 x 80 = 320 GB >= 300 GB
    check(suggested(300 * GB, 80 * GB, 8, 2, True, False, heads=(12, 8)),
          expect("노드 내 TP = 4, 노드 간 DP/FSDP = 2",
                 [over("300.0 GB", "80.0 GB"), IB.format(2), TP_NODE.format(4),
                  "노드 하나(320.0 GB)에 한 벌이 들어가므로 노드마다 한 벌씩 두고 노드 사이는 데이터 병렬(또는 FSDP) 2으로 나눕니다."],
                 tp=4, dp=2))
    # heads (36, 9) on nodes of 9: TP = 9 > 8 -> the NVSwitch warning
    s = suggested(300 * GB, 80 * GB, 9, 2, True, False, heads=(36, 9))
    assert (s.tp, s.dp, s.warnings) == (9, 2, (TP_WARN,))


def test_suggest_multi_node_pipeline_of_nodes():
    # 1,000 GB over nodes of 640 GB: PP = ceil(1000 / 640) = 2 nodes; 4 nodes -> 2 pipelines
    check(suggested(1000 * GB, 80 * GB, 8, 4, True, False),
          expect("노드 내 TP = 8, 노드 간 PP = 2, DP = 2",
                 [over("1,000.0 GB", "80.0 GB"), IB.format(4), TP_NODE.format(8),
                  "한 벌이 노드 하나(640.0 GB)를 넘으므로 노드 2개를 파이프라인 단계로 잇습니다(PP = 2). "
                  "이런 파이프라인을 2벌 두어 데이터 병렬 2로 나눕니다."], tp=8, pp=2, dp=2))
    check(suggested(1000 * GB, 80 * GB, 8, 4, True, True, goal="serving"),
          expect("노드 내 TP = 8, 노드 간 PP = 2, DP = 2 + EP (전문가 병렬)",
                 [over("1,000.0 GB", "80.0 GB"), IB.format(4), TP_NODE.format(8),
                  "한 벌이 노드 하나(640.0 GB)를 넘으므로 노드 2개를 파이프라인 단계로 잇습니다(PP = 2). "
                  "이런 파이프라인을 2벌 두어 요청을 나눠 받습니다. "
                  "요청 하나는 단계를 차례로 지나가므로 PP는 요청 하나의 속도를 높이지 않습니다.", MOE],
                 tp=8, pp=2, dp=2, ep=True))
    # 16 nodes of 16 GPUs: TP = 16 (a power of two) with the > 8 warning; 1,000 GB fit 16 x 80 = 1,280 GB -> DP = 16
    s = suggested(1000 * GB, 80 * GB, 16, 16, True, False)
    assert (s.tp, s.pp, s.dp, s.strategy, s.warnings) == (16, 1, 16, "노드 내 TP = 16, 노드 간 DP/FSDP = 16", (TP_WARN,))


def test_suggest_partly_filled_last_node():
    # 20 GPUs as nodes of 8: 2 full nodes (16 GPUs) are used; 1,000 GB -> PP = 2 nodes, DP = 1
    check(suggested(1000 * GB, 80 * GB, 8, 3, True, False, n_gpus=20),
          expect("노드 내 TP = 8, 노드 간 PP = 2",
                 [over("1,000.0 GB", "80.0 GB"),
                  "GPU 20장은 8장짜리 노드 3개를 채우지 못합니다. 같은 구성을 노드마다 반복하려면 노드당 GPU 수가 같아야 하므로, "
                  "가득 찬 노드 2개만 쓰는 구성으로 계산합니다.",
                  IB.format(2), TP_NODE.format(8),
                  "한 벌이 노드 하나(640.0 GB)를 넘으므로 노드 2개를 파이프라인 단계로 잇습니다(PP = 2)."], tp=8, pp=2))
    # 12 GPUs = 8 + 4: 700 GB fit 12 x 80 = 960 but not the one full node (640) -> impossible
    check(suggested(700 * GB, 80 * GB, 8, 2, True, False, n_gpus=12),
          expect("현재 구성으로는 불가능 (가득 찬 노드의 메모리 부족)",
                 [over("700.0 GB", "80.0 GB"),
                  "GPU 12장은 8장짜리 노드 2개를 채우지 못합니다. 같은 구성을 노드마다 반복하려면 노드당 GPU 수가 같아야 하므로, "
                  "가득 찬 노드 1개만 쓰는 구성으로 계산합니다."], feasible=False))
    # 640 GB fit the one full node exactly: feasible, TP = 8 on it
    s = suggested(640 * GB, 80 * GB, 8, 2, True, False, n_gpus=12)
    assert s.feasible and (s.tp, s.pp, s.dp) == (8, 1, 1)


def test_suggest_one_full_node_left_reads_as_one_node():
    # 12 GPUs = one node of 8 + 4: the 4 are left out, and 300 GB fit one node's 640 GB, so TP = 8 inside it
    s = suggested(300 * GB, 80 * GB, 8, 2, True, False, n_gpus=12)
    assert "노드 간" not in s.strategy and s.strategy.endswith("(노드 내 NVLink)")
    assert not any("InfiniBand" in r for r in s.reasons)
    assert (s.tp, s.pp, s.dp) == (8, 1, 1) and s.feasible


def test_suggest_multi_node_without_nvlink():
    check(suggested(300 * GB, 48 * GB, 4, 2, False, False),
          expect("FSDP (샤딩 8) 또는 노드 간 PP",
                 [over("300.0 GB", "48.0 GB"), IB.format(2),
                  "NVLink가 없어 TP는 쓰지 않고, 전체 GPU에 파라미터를 나누는 FSDP(ZeRO-3)나 노드 간 PP를 씁니다."],
                 dp=8, fsdp=True))
    pp_only = "NVLink가 없어 TP는 쓰지 않고, 층 묶음을 GPU마다 나누는 PP를 씁니다."
    # serving: PP = min(8, ceil(300 / 48) = 7) = 7 does not divide 8 -> 8 stages, one copy
    check(suggested(300 * GB, 48 * GB, 4, 2, False, False, goal="serving"),
          expect("PP = 8", [over("300.0 GB", "48.0 GB"), IB.format(2), pp_only], pp=8))
    # 100 GB: ceil(100 / 48) = 3 does not divide 8 -> 4 stages, 8 / 4 = 2 copies
    check(suggested(100 * GB, 48 * GB, 4, 2, False, False, goal="serving"),
          expect("PP = 4, 사본 2개", [over("100.0 GB", "48.0 GB"), IB.format(2), pp_only], pp=4, dp=2))


def test_suggest_rounds_gigabytes_to_one_decimal_exactly():
    # x.75 is exact in binary and rounds half-even to x.8; a value a hair smaller (a divisor of 1e9 + 1) gives x.7
    s = suggested(1.75 * GB, 0.75 * GB, 4, 1, False, False)
    assert s.reasons[0] == over("1.8 GB", "0.8 GB")
    # 3 x 0.25 GB = 0.75 GB in all
    s = suggested(1 * GB, 0.25 * GB, 3, 1, False, False)
    assert s.reasons[1] == "GPU 3장을 모두 합쳐도 0.8 GB라 모델을 나눠 담을 수 없습니다."
    # nodes of 2 x 0.375 GB = 0.75 GB
    s = suggested(0.5 * GB, 0.375 * GB, 2, 2, True, False)
    assert s.reasons[-1].startswith("노드 하나(0.8 GB)에 한 벌이 들어가므로 노드마다 한 벌씩")
    s = suggested(0.5 * GB, 0.375 * GB, 2, 2, True, False, goal="serving")
    assert s.reasons[-1].startswith("노드 하나(0.8 GB)에 한 벌이 들어가므로 노드마다 사본을")
    s = suggested(1.5 * GB, 0.375 * GB, 2, 2, True, False)
    assert s.reasons[-1].startswith("한 벌이 노드 하나(0.8 GB)를 넘으므로 노드 2개를")


@pytest.mark.parametrize("kwargs, pattern", [
    (dict(n_gpus=17), r"^n_gpus=17 does not match 2 node\(s\) of up to 8 GPUs"),
    (dict(n_gpus=8), r"^n_gpus=8 does not match"),       # 8 GPUs fill only one of the two nodes
    (dict(n_gpus=0), r"^n_gpus must be a whole number"),
    (dict(heads=(0, 8)), r"^heads\[0\] must be a whole number"),
    (dict(heads=(8, 0)), r"^heads\[1\] must be a whole number"),
    (dict(goal="inference"), r"^goal must be 'training' or 'serving'"),
    (dict(gpus_per_node=0), r"^gpus_per_node must"),
    (dict(n_nodes=0), r"^n_nodes must"),
    (dict(model_bytes_needed=0.0), r"^model_bytes_needed must"),
    (dict(gpu_memory_bytes=-1.0), r"^gpu_memory_bytes must"),
    (dict(has_nvlink=1), r"^has_nvlink must be True or False"),
    (dict(is_moe=None), r"^is_moe must be True or False"),
])
def test_suggest_errors_name_the_argument(kwargs, pattern):
    args = dict(model_bytes_needed=140 * GB, gpu_memory_bytes=80 * GB, gpus_per_node=8, n_nodes=2,
                has_nvlink=True, is_moe=False)
    args.update(kwargs)
    with pytest.raises(ValueError, match=pattern):
        par.suggest(**args)


# --- the decision flow, short checks -------------------------------------------------------------------------------
def test_suggest_fits_on_one_gpu_gives_ddp():
    s = suggested(14 * GB, 80 * GB, 8, 1, True, False)
    assert s.feasible and s.strategy.startswith("DDP") and (s.tp, s.pp, s.dp) == (1, 1, 8)
    one = suggested(14 * GB, 80 * GB, 1, 1, False, False)
    assert one.dp == 1 and "단일 GPU" in one.strategy


def test_suggest_nvlink_node_gives_tp():
    s = suggested(140 * GB, 80 * GB, 8, 1, True, False)
    assert (s.tp, s.pp, s.dp) == (8, 1, 1) and "TP = 8" in s.strategy and not s.fsdp


def test_suggest_pcie_node_gives_fsdp_or_pp():
    s = suggested(140 * GB, 48 * GB, 4, 1, False, False)
    assert s.fsdp and s.tp == 1 and "FSDP" in s.strategy and "PP" in s.strategy


def test_suggest_multi_node():
    # 1,400 GB over 80 GB GPUs, 8 per node (640 GB per node): ceil(1400/640) = 3 stages,
    # but 3 does not divide 4 nodes, so PP = 4 and DP = 1
    s = suggested(1400 * GB, 80 * GB, 8, 4, True, False)
    assert (s.tp, s.pp, s.dp) == (8, 4, 1)
    # 1,000 GB on 16 nodes: ceil(1000/640) = 2 stages, 16/2 = 8 pipelines
    s = suggested(1000 * GB, 80 * GB, 8, 16, True, True)
    assert (s.tp, s.pp, s.dp) == (8, 2, 8) and s.ep and "EP" in s.strategy
    # fits in one node: TP inside, data parallel across nodes
    s = suggested(300 * GB, 80 * GB, 8, 2, True, False)
    assert (s.tp, s.pp, s.dp) == (8, 1, 2)
    assert any("InfiniBand" in r for r in s.reasons)
    s = suggested(300 * GB, 48 * GB, 4, 2, False, False)
    assert s.fsdp and s.dp == 8


def test_suggest_impossible_is_a_result_not_an_error():
    s = suggested(2000 * GB, 24 * GB, 2, 1, False, True)
    assert not s.feasible and not s.ep and "불가능" in s.strategy


@pytest.mark.parametrize("kwargs, name", [
    (dict(gpus_per_node=0), "gpus_per_node"),
    (dict(n_nodes=0), "n_nodes"),
    (dict(model_bytes_needed=-1.0), "model_bytes_needed"),
    (dict(gpu_memory_bytes=0.0), "gpu_memory_bytes"),
    (dict(gpus_per_node=2.5), "gpus_per_node"),
    (dict(has_nvlink=1), "has_nvlink"),
    (dict(is_moe="no"), "is_moe"),
    (dict(model_bytes_needed=float("nan")), "model_bytes_needed"),
])
def test_suggest_bad_input_names_the_argument(kwargs, name):
    args = dict(model_bytes_needed=140 * GB, gpu_memory_bytes=80 * GB, gpus_per_node=8, n_nodes=1,
                has_nvlink=True, is_moe=False)
    args.update(kwargs)
    with pytest.raises(ValueError, match=name):
        par.suggest(**args)


def test_suggest_serving_vocabulary_and_tp_divides_heads():
    s = suggested(14e9, 80e9, 8, 2, True, False, goal="serving")
    assert "gradient" not in " ".join(s.reasons) and "DDP" not in s.strategy and s.dp == 16
    s = suggested(150e9, 80e9, 3, 1, True, False, heads=(64, 8))
    assert s.tp == 1 or 64 % s.tp == 0 and s.tp != 3
    s = suggested(150e9, 80e9, 3, 1, True, False)
    assert s.tp in (1, 2)  # 3 divides no common head count
    s = suggested(300e9, 80e9, 8, 2, True, False, n_gpus=12, goal="serving")
    assert s.tp * s.pp * s.dp <= 12  # 12 GPUs are never counted as 2 x 8
    assert "FSDP" not in suggested(140e9, 48e9, 4, 1, False, False, goal="serving").strategy


def test_suggest_refuses_a_gpu_memory_in_gb_and_a_string_flag():
    import pytest
    from xpucalc.llm import parallelism
    with pytest.raises(ValueError, match=r"^gpu_memory_bytes=80 looks like GB; .*pass 80e9"):
        parallelism.suggest(140e9, 80, 8, 1, True, False)
    with pytest.raises(ValueError, match=r"^has_nvlink must be True or False, got 'False' \(str\); write has_nvlink=False"):
        parallelism.suggest(140e9, 80e9, 8, 1, "False", False)
