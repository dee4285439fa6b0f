"""Parallelism for LLM training and serving: the ring all-reduce, traffic per strategy, and the decision flow.

Sizes are bytes, bandwidths bytes/s, times seconds. The communication-time formulas
themselves live in :mod:`xpucalc.llm` (``allreduce_time_s``,
``tp_activation_bytes_per_forward``); this module adds the step-by-step ring schedule
(for diagrams), the FSDP and pipeline formulas, and :func:`suggest`, the decision
flow of the reference part turned into a function.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

from .._check import positive, positive_int


# --- ring all-reduce, step by step ---------------------------------------------
@dataclass(frozen=True)
class RingStep:
    """One step of a ring all-reduce.

    Attributes:
        phase: ``"start"``, ``"reduce-scatter"`` or ``"all-gather"``.
        index: step number within the phase (1-based; 0 for the start).
        sends: ``(src_rank, dst_rank, chunk)`` for every transfer of the step.
        holdings: ``holdings[r][c]`` is the set of ranks whose chunk ``c`` is summed
            into what rank ``r`` holds after the step.
    """

    phase: str
    index: int
    sends: tuple[tuple[int, int, int], ...]
    holdings: tuple[tuple[frozenset[int], ...], ...]


def ring_allreduce_steps(n_ranks: int) -> list[RingStep]:
    """The ring all-reduce of ``n_ranks`` ranks, as the start state plus 2(n-1) steps.

    The tensor is cut into ``n_ranks`` chunks. In reduce-scatter step ``s`` (1..n-1)
    rank ``r`` sends chunk ``(r - s + 1) mod n`` to rank ``r + 1``, which adds it to its
    own copy; afterwards rank ``r`` holds the full sum of chunk ``(r + 1) mod n``. In
    all-gather step ``s`` rank ``r`` forwards the finished chunk ``(r - s + 2) mod n``,
    which the receiver stores. Each rank sends one chunk per step.
    """
    n = positive_int(n_ranks, "n_ranks")
    if n < 2:
        raise ValueError(f"n_ranks must be >= 2 for a ring, got {n_ranks!r}")
    hold = [[frozenset({r}) for _ in range(n)] for r in range(n)]
    steps = [RingStep("start", 0, (), tuple(tuple(h) for h in hold))]
    for s in range(1, n):
        sends = tuple((r, (r + 1) % n, (r - s + 1) % n) for r in range(n))
        new = [list(h) for h in hold]
        for src, dst, c in sends:
            new[dst][c] = hold[dst][c] | hold[src][c]
        hold = new
        steps.append(RingStep("reduce-scatter", s, sends, tuple(tuple(h) for h in hold)))
    for s in range(1, n):
        sends = tuple((r, (r + 1) % n, (r - s + 2) % n) for r in range(n))
        new = [list(h) for h in hold]
        for src, dst, c in sends:
            new[dst][c] = hold[src][c]
        hold = new
        steps.append(RingStep("all-gather", s, sends, tuple(tuple(h) for h in hold)))
    return steps


# --- traffic of the strategies ---------------------------------------------------
def fsdp_traffic_bytes(size_bytes: float, n_ranks: int) -> float:
    """Bytes each rank sends per step with FSDP / ZeRO-3, bytes.

    Parameters are all-gathered twice (forward and backward) and gradients
    reduce-scattered once: 3 (n-1)/n x size, 1.5 times the 2 (n-1)/n x size of DDP.
    """
    n = positive_int(n_ranks, "n_ranks")
    if n < 2:
        raise ValueError(f"n_ranks must be >= 2 for sharding, got {n_ranks!r}")
    return 3.0 * (n - 1) / n * positive(size_bytes, "size_bytes")


def pipeline_bubble_fraction(stages: int, microbatches: int) -> float:
    """Idle fraction of a GPipe / 1F1B pipeline schedule: (p - 1) / (m + p - 1).

    Args:
        stages: pipeline stages p (GPUs in the pipeline).
        microbatches: micro-batches m per step.
    """
    p = positive_int(stages, "stages")
    m = positive_int(microbatches, "microbatches")
    return (p - 1) / (m + p - 1)


def gpus_3d(tp: int, pp: int, dp: int) -> int:
    """GPUs used by a TP x PP x DP layout."""
    return positive_int(tp, "tp") * positive_int(pp, "pp") * positive_int(dp, "dp")


# --- the decision flow -------------------------------------------------------------
@dataclass(frozen=True)
class Suggestion:
    """What :func:`suggest` returns.

    Attributes:
        strategy: the suggested layout in Korean (e.g. ``"노드 내 TP = 8, 노드 간 PP = 2"``).
        reasons: the questions of the flow and their answers, in order, in Korean.
        feasible: False when the model cannot fit even spread over every GPU given.
        tp, pp, dp: degrees of tensor, pipeline and data parallelism of the layout
            (1 where unused; for FSDP, ``dp`` counts the sharded replicas).
        fsdp: parameters are sharded across the data-parallel ranks.
        ep: add expert parallelism (MoE).
    """

    strategy: str
    reasons: tuple[str, ...]
    feasible: bool = True
    tp: int = 1
    pp: int = 1
    dp: int = 1
    fsdp: bool = False
    ep: bool = False
    warnings: tuple[str, ...] = field(default_factory=tuple)

    def __str__(self) -> str:
        return self.strategy


def _flag(value: object, name: str) -> bool:
    if not isinstance(value, bool):
        raise ValueError(f"{name} must be True or False, got {value!r}")
    return value


def _tp_degree(limit: int, heads: tuple[int, int] | None) -> int:
    """Largest TP degree <= ``limit`` that divides both head counts (powers of two when they are unknown)."""
    for t in range(limit, 0, -1):
        if heads is None:
            if t & (t - 1) == 0:
                return t
        elif heads[0] % t == 0 and heads[1] % t == 0:
            return t
    return 1


def suggest(model_bytes_needed: float, gpu_memory_bytes: float, gpus_per_node: int, n_nodes: int,
            has_nvlink: bool, is_moe: bool, *, goal: str = "training", n_gpus: int | None = None,
            heads: tuple[int, int] | None = None) -> Suggestion:
    """Walk the decision flow of the reference part and say which parallelism to start from.

    The flow: does the model fit on one GPU (then DDP)? If not, is there NVLink in the
    node (then TP over the node's GPUs, otherwise FSDP or PP)? Several nodes (then TP
    stays inside the node and PP or FSDP spans nodes over InfiniBand)? MoE (then add EP)?

    Args:
        model_bytes_needed: bytes one full copy of the job needs on the GPUs (weights, and for
            training gradients, optimizer state and activations), bytes.
        gpu_memory_bytes: memory of one GPU, bytes.
        gpus_per_node: GPUs in one node (>= 1).
        n_nodes: nodes (>= 1).
        has_nvlink: the GPUs of a node are joined by NVLink / NVSwitch.
        is_moe: the model is a mixture of experts.
        goal: ``"training"`` (replicas exchange gradients; FSDP is an option) or ``"serving"``
            (replicas are independent copies answering different requests; no gradients, no FSDP).
        n_gpus: GPUs in total when the last node is not full (12 GPUs = one node of 8 + one of 4);
            default ``gpus_per_node x n_nodes``.
        heads: (attention heads, KV heads) of the model; TP must divide both. Unknown: TP is
            kept to a power of two, which divides the head counts of the common models.

    Returns:
        a :class:`Suggestion`; ``feasible`` is False when even all GPUs together lack the memory.
    """
    need = positive(model_bytes_needed, "model_bytes_needed")
    mem = positive(gpu_memory_bytes, "gpu_memory_bytes")
    g = positive_int(gpus_per_node, "gpus_per_node")
    nodes = positive_int(n_nodes, "n_nodes")
    nvlink = _flag(has_nvlink, "has_nvlink")
    moe = _flag(is_moe, "is_moe")
    if goal not in ("training", "serving"):
        raise ValueError(f"goal must be 'training' or 'serving', got {goal!r}")
    serving = goal == "serving"
    total = g * nodes if n_gpus is None else positive_int(n_gpus, "n_gpus")
    if total > g * nodes or total <= g * (nodes - 1):
        raise ValueError(f"n_gpus={total} does not match {nodes} node(s) of up to {g} GPUs")
    if heads is not None:
        heads = (positive_int(heads[0], "heads[0]"), positive_int(heads[1], "heads[1]"))
    gb_need, gb_mem = need / 1e9, mem / 1e9
    reasons: list[str] = []
    warnings: list[str] = []

    def finish(strategy: str, **kw) -> Suggestion:
        ep = moe and kw.get("feasible", True)
        if ep:
            strategy += " + EP (전문가 병렬)"
            reasons.append("MoE 모델이므로 전문가(expert)를 GPU에 나눠 두는 EP 축을 더하고, "
                           "all-to-all에 쓸 대역폭(NVLink/InfiniBand)을 확보해야 합니다.")
        return Suggestion(strategy, tuple(reasons), ep=ep, warnings=tuple(warnings), **kw)

    if need <= mem:
        reasons.append(f"필요 메모리 {gb_need:,.1f} GB가 GPU 한 장({gb_mem:,.1f} GB)에 들어갑니다.")
        if total == 1:
            reasons.append("GPU가 한 장뿐이므로 병렬화할 것이 없습니다.")
            return finish("단일 GPU (병렬화 없음)")
        if serving:
            reasons.append(f"GPU {total}장마다 모델 사본을 하나씩 두고 요청을 나눠 받습니다(복제 {total}개). "
                           "사본끼리는 통신하지 않으므로 요청 하나의 속도는 GPU 한 장의 속도입니다.")
            return finish(f"복제 서빙 (사본 {total}개, 사본당 GPU 1장)", dp=total)
        reasons.append(f"GPU {total}장에 모델을 통째로 복제하고 배치를 나누는 DDP로 충분합니다 "
                       "(step마다 gradient all-reduce 1회).")
        if nodes > 1:
            reasons.append("노드가 여러 개이므로 노드 사이 all-reduce에는 InfiniBand급 네트워크가 필요합니다.")
        return finish(f"DDP (데이터 병렬 {total})", dp=total)

    reasons.append(f"필요 메모리 {gb_need:,.1f} GB가 GPU 한 장({gb_mem:,.1f} GB)을 넘습니다.")
    if need > mem * total:
        reasons.append(f"GPU {total}장을 모두 합쳐도 {mem * total / 1e9:,.1f} GB라 모델을 나눠 담을 수 없습니다.")
        reasons.append("양자화로 바이트를 줄이거나, GPU를 늘리거나, CPU/NVMe 오프로드(느림)를 검토하세요.")
        return finish("현재 구성으로는 불가능 (메모리 부족)", feasible=False)

    if nodes > 1 and total != g * nodes:
        # The same layout repeats per node, so a partly filled last node is left out; one full node left
        # is then planned as a single node (no InfiniBand between nodes).
        reasons.append(f"GPU {total}장은 {g}장짜리 노드 {nodes}개를 채우지 못합니다. 같은 구성을 노드마다 반복하려면 "
                       f"노드당 GPU 수가 같아야 하므로, 가득 찬 노드 {total // g}개만 쓰는 구성으로 계산합니다.")
        nodes = total // g
        total = g * nodes
        if need > mem * total:
            return finish("현재 구성으로는 불가능 (가득 찬 노드의 메모리 부족)", feasible=False)
    node_mem = mem * g
    if nodes == 1:
        g = total
        if g == 1:  # unreachable: need > mem and need <= mem * total with total == 1
            raise AssertionError("inconsistent sizes")
        if nvlink:
            t = _tp_degree(g, heads)
            while t > 1 and need > mem * t * (g // t):
                t //= 2
            rest = g // t
            pp = max(1, math.ceil(need / (mem * t))) if need > mem * t else 1
            while rest % pp:
                pp += 1
            dp = rest // pp
            why = "헤드 수를 나누는" if heads else "2의 거듭제곱인(흔한 모델의 헤드 수를 나누는)"
            reasons.append(f"노드 안 GPU가 NVLink로 연결되어 있으므로 레이어 안을 나누는 TP로 묶습니다. TP는 {why} "
                           f"값이어야 하므로 TP = {t}입니다.")
            if pp > 1:
                reasons.append(f"TP {t}장에 한 벌이 들어가지 않아 PP = {pp}단계로 레이어를 나눕니다.")
            if dp > 1:
                reasons.append(f"남는 GPU로 같은 구성을 {dp}벌 둡니다"
                               + ("(사본마다 다른 요청)." if serving else "(데이터 병렬)."))
            if g > 8:
                warnings.append("TP는 보통 NVSwitch 한 도메인(대개 8 GPU) 안에서만 씁니다.")
            label = f"TP = {t}" + (f", PP = {pp}" if pp > 1 else "") + (f", 사본 {dp}개" if dp > 1 and serving else
                                                                        f", DP = {dp}" if dp > 1 else "")
            return finish(label + " (노드 내 NVLink)", tp=t, pp=pp, dp=dp)
        if serving:
            reasons.append("NVLink가 없어 레이어마다 all-reduce가 필요한 TP는 PCIe로는 느립니다. "
                           f"레이어 묶음을 GPU {g}장에 나누는 PP를 씁니다(요청 하나는 단계를 차례로 지나갑니다).")
            return finish(f"PP = {g} (PCIe)", pp=g)
        reasons.append("NVLink가 없어 레이어마다 all-reduce가 필요한 TP는 PCIe로는 느립니다. "
                       f"파라미터를 GPU {g}장에 나눠 두는 FSDP(ZeRO-3), 또는 레이어 묶음을 나누는 PP를 씁니다.")
        return finish(f"FSDP (샤딩 {g}) 또는 PP = {g}", dp=g, fsdp=True)

    reasons.append(f"노드가 {nodes}개이므로 노드 사이 통신은 InfiniBand(RDMA)가 사실상 필수입니다.")
    if nvlink:
        g = _tp_degree(g, heads)
        node_mem = mem * g
        reasons.append(f"TP는 NVLink가 닿는 노드 안(TP = {g})에 두고, 노드 사이에는 통신이 적은 축을 둡니다.")
        if g > 8:
            warnings.append("TP는 보통 NVSwitch 한 도메인(대개 8 GPU) 안에서만 씁니다.")
        if need <= node_mem:
            if serving:
                reasons.append(f"노드 하나({node_mem / 1e9:,.1f} GB)에 한 벌이 들어가므로 노드마다 사본을 하나씩 두고 "
                               f"요청을 나눠 받습니다(사본 {nodes}개).")
                return finish(f"노드 내 TP = {g}, 노드마다 사본 1개 (사본 {nodes}개)", tp=g, dp=nodes)
            reasons.append(f"노드 하나({node_mem / 1e9:,.1f} GB)에 한 벌이 들어가므로 노드마다 한 벌씩 두고 "
                           f"노드 사이는 데이터 병렬(또는 FSDP) {nodes}으로 나눕니다.")
            return finish(f"노드 내 TP = {g}, 노드 간 DP/FSDP = {nodes}", tp=g, dp=nodes)
        pp = math.ceil(need / node_mem)
        while nodes % pp:
            pp += 1
        dp = nodes // pp
        reasons.append(f"한 벌이 노드 하나({node_mem / 1e9:,.1f} GB)를 넘으므로 노드 {pp}개를 파이프라인 단계로 "
                       f"잇습니다(PP = {pp})."
                       + ((f" 이런 파이프라인을 {dp}벌 두어 요청을 나눠 받습니다." if serving else
                           f" 이런 파이프라인을 {dp}벌 두어 데이터 병렬 {dp}로 나눕니다.") if dp > 1 else "")
                       + (" 요청 하나는 단계를 차례로 지나가므로 PP는 요청 하나의 속도를 높이지 않습니다." if serving else ""))
        return finish(f"노드 내 TP = {g}, 노드 간 PP = {pp}" + (f", DP = {dp}" if dp > 1 else ""), tp=g, pp=pp, dp=dp)
    if serving:
        reasons.append("NVLink가 없어 TP는 쓰지 않고, 레이어 묶음을 GPU마다 나누는 PP를 씁니다.")
        pp = min(total, math.ceil(need / mem))
        while total % pp:
            pp += 1
        return finish(f"PP = {pp}" + (f", 사본 {total // pp}개" if total // pp > 1 else ""), pp=pp, dp=total // pp)
    reasons.append("NVLink가 없어 TP는 쓰지 않고, 전체 GPU에 파라미터를 나누는 FSDP(ZeRO-3)나 노드 간 PP를 씁니다.")
    return finish(f"FSDP (샤딩 {total}) 또는 노드 간 PP", dp=total, fsdp=True)
