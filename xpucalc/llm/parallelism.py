"""Parallelism for LLM training and serving: the ring schedule, the pipeline bubble, and the decision flow.

Sizes are bytes. Every communication volume and time (ring all-reduce, FSDP, all-to-all)
lives in :mod:`xpucalc.llm.comm`; this module adds the step-by-step ring schedule (for
diagrams), the pipeline formulas, and :func:`suggest`, the decision flow of the reference
part turned into a function. :func:`suggest` decides and states why as data (a :class:`Plan`
of :class:`Step` s); ``xpucalc.render.parallelism_text`` words the plan in Korean.
"""
from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

from .._check import check_bool, device_figure, positive, positive_int


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
    which the receiver stores. Each rank sends one chunk per step, so a rank sends
    2(n-1) chunks of size/n: ``xpucalc.llm.comm.allreduce_traffic_bytes``. One rank
    has nothing to send: the start state alone.
    """
    n = positive_int(n_ranks, "n_ranks")
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


# --- pipeline and 3D layout ------------------------------------------------------
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
#: The questions of the flow and their answers, in the order :func:`suggest` may take them. ``Step.values``
#: holds, per kind: ``need`` and ``gpu_memory`` (bytes) for fits_one_gpu / exceeds_one_gpu; ``gpus`` for
#: replicas, ddp, exceeds_all_gpus (with ``memory``, all GPUs' bytes), no_nvlink_pp, no_nvlink_fsdp;
#: ``gpus``, ``per_node``, ``nodes``, ``full_nodes`` for partial_last_node; ``tp`` and ``heads_known`` for tp_in_node;
#: ``tp``, ``pp`` for pp_in_node; ``copies`` for copies_in_node; ``nodes`` for several_nodes; ``tp`` for
#: tp_inside_node; ``node_memory`` (bytes), ``nodes`` for replica_per_node / dp_across_nodes;
#: ``tp``, ``nodes``, ``memory`` (bytes of one TP group per node, all nodes) for exceeds_tp_groups;
#: ``node_memory``, ``pp``, ``dp`` for pipeline_of_nodes; ``gpus_in_node`` (the GPUs TP would span) for the
#: warning tp_beyond_nvswitch. The others carry nothing.
StepKind = Literal[
    "fits_one_gpu", "single_gpu", "replicas", "ddp", "ddp_across_nodes",
    "exceeds_one_gpu", "exceeds_all_gpus", "partial_last_node",
    "tp_in_node", "pp_in_node", "copies_in_node", "no_nvlink_pp", "no_nvlink_fsdp",
    "several_nodes", "tp_inside_node", "replica_per_node", "dp_across_nodes", "exceeds_tp_groups", "pipeline_of_nodes",
    "no_nvlink_pp_across_nodes", "no_nvlink_fsdp_across_nodes", "moe_adds_ep", "tp_beyond_nvswitch"]

#: The layouts :func:`suggest` can end in (``Plan.layout``).
LayoutKind = Literal[
    "single_gpu", "replicas", "ddp", "impossible", "impossible_full_nodes", "impossible_tp_groups", "tp_in_node",
    "pp_in_node",
    "fsdp_or_pp_in_node", "tp_node_replicas", "tp_node_dp", "tp_node_pp", "pp_across_nodes",
    "fsdp_or_pp_across_nodes"]


@dataclass(frozen=True)
class Step:
    """One question of the decision flow and its answer.

    Attributes:
        kind: which question and answer (see ``StepKind``).
        values: the figures the answer rests on, by name (bytes, GPU counts, degrees; see ``StepKind``).
    """

    kind: StepKind
    values: Mapping[str, float | int | bool] = field(default_factory=dict)


@dataclass(frozen=True)
class Plan:
    """What :func:`suggest` returns: the layout, its degrees, and the steps that chose it.

    Attributes:
        layout: which layout the flow ended in (see ``LayoutKind``).
        goal: ``"training"`` or ``"serving"``.
        steps: the questions of the flow and their answers, in order.
        warnings: caveats about the layout (``tp_beyond_nvswitch``).
        feasible: False when the model cannot fit even spread over every GPU given.
        tp, pp, dp: degrees of tensor, pipeline and data parallelism of the layout
            (1 where unused; for FSDP, ``dp`` counts the sharded replicas).
        fsdp: parameters are sharded across the data-parallel ranks.
        ep: add expert parallelism (MoE).
    """

    layout: LayoutKind
    goal: str
    steps: tuple[Step, ...]
    warnings: tuple[Step, ...] = ()
    feasible: bool = True
    tp: int = 1
    pp: int = 1
    dp: int = 1
    fsdp: bool = False
    ep: bool = False


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
            heads: tuple[int, int] | None = None) -> Plan:
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
        a :class:`Plan`; ``feasible`` is False when even all GPUs together lack the memory.
        ``xpucalc.render.parallelism_text.narrate(plan)`` words it in Korean.

    Raises:
        ValueError: for a GPU memory under 1 MB (``gpu_memory_bytes=80`` looks like GB: pass 80e9) and for a flag
            that is not True or False (``has_nvlink="False"``).
    """
    need = positive(model_bytes_needed, "model_bytes_needed")
    mem = device_figure(gpu_memory_bytes, "gpu_memory_bytes", "bytes")
    g = positive_int(gpus_per_node, "gpus_per_node")
    nodes = positive_int(n_nodes, "n_nodes")
    nvlink = check_bool(has_nvlink, "has_nvlink")
    moe = check_bool(is_moe, "is_moe")
    if goal not in ("training", "serving"):
        raise ValueError(f"goal must be 'training' or 'serving', got {goal!r}")
    serving = goal == "serving"
    total = g * nodes if n_gpus is None else positive_int(n_gpus, "n_gpus")
    if total > g * nodes or total <= g * (nodes - 1):
        raise ValueError(f"n_gpus={total} does not match {nodes} node(s) of up to {g} GPUs")
    if heads is not None:
        heads = (positive_int(heads[0], "heads[0]"), positive_int(heads[1], "heads[1]"))
    steps: list[Step] = []
    warnings: list[Step] = []

    def step(kind: StepKind, **values: float | int | bool) -> None:
        steps.append(Step(kind, values))

    def finish(layout: LayoutKind, **kw) -> Plan:
        ep = moe and kw.get("feasible", True)
        if ep:
            step("moe_adds_ep")
        return Plan(layout, goal, tuple(steps), tuple(warnings), ep=ep, **kw)

    if need <= mem:
        step("fits_one_gpu", need=need, gpu_memory=mem)
        if total == 1:
            step("single_gpu")
            return finish("single_gpu")
        if serving:
            step("replicas", gpus=total)
            return finish("replicas", dp=total)
        step("ddp", gpus=total)
        if nodes > 1:
            step("ddp_across_nodes")
        return finish("ddp", dp=total)

    step("exceeds_one_gpu", need=need, gpu_memory=mem)
    if need > mem * total:
        step("exceeds_all_gpus", gpus=total, memory=mem * total)
        return finish("impossible", feasible=False)

    if nodes > 1 and total != g * nodes:
        # The same layout repeats per node, so a partly filled last node is left out; one full node left
        # is then planned as a single node (no InfiniBand between nodes).
        step("partial_last_node", gpus=total, per_node=g, nodes=nodes, full_nodes=total // g)
        nodes = total // g
        total = g * nodes
        if need > mem * total:
            return finish("impossible_full_nodes", feasible=False)
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
            step("tp_in_node", tp=t, heads_known=heads is not None)
            if pp > 1:
                step("pp_in_node", tp=t, pp=pp)
            if dp > 1:
                step("copies_in_node", copies=dp)
            if g > 8:
                warnings.append(Step("tp_beyond_nvswitch", {"gpus_in_node": g}))
            return finish("tp_in_node", tp=t, pp=pp, dp=dp)
        if serving:
            step("no_nvlink_pp", gpus=g)
            return finish("pp_in_node", pp=g)
        step("no_nvlink_fsdp", gpus=g)
        return finish("fsdp_or_pp_in_node", dp=g, fsdp=True)

    step("several_nodes", nodes=nodes)
    if nvlink:
        g = _tp_degree(g, heads)
        node_mem = mem * g
        step("tp_inside_node", tp=g)
        if g > 8:
            warnings.append(Step("tp_beyond_nvswitch", {"gpus_in_node": g}))
        if need <= node_mem:
            if serving:
                step("replica_per_node", node_memory=node_mem, nodes=nodes)
                return finish("tp_node_replicas", tp=g, dp=nodes)
            step("dp_across_nodes", node_memory=node_mem, nodes=nodes)
            return finish("tp_node_dp", tp=g, dp=nodes)
        pp = math.ceil(need / node_mem)
        if pp > nodes:  # the heads keep TP below the node's GPUs, and one TP group per node is too little
            step("exceeds_tp_groups", tp=g, nodes=nodes, memory=node_mem * nodes)
            return finish("impossible_tp_groups", feasible=False)
        while nodes % pp:
            pp += 1
        dp = nodes // pp
        step("pipeline_of_nodes", node_memory=node_mem, pp=pp, dp=dp)
        return finish("tp_node_pp", tp=g, pp=pp, dp=dp)
    if serving:
        step("no_nvlink_pp_across_nodes")
        pp = min(total, math.ceil(need / mem))
        while total % pp:
            pp += 1
        return finish("pp_across_nodes", pp=pp, dp=total // pp)
    step("no_nvlink_fsdp_across_nodes")
    return finish("fsdp_or_pp_across_nodes", dp=total, fsdp=True)


__all__ = ["LayoutKind", "Plan", "RingStep", "Step", "StepKind", "gpus_3d", "pipeline_bubble_fraction",
           "ring_allreduce_steps", "suggest"]
