"""Serving estimate of one model on one kind of device in a TP x PP x EP x DP layout, with memory capacity.

A request runs on one data-parallel replica of ``tp x pp x ep`` devices. Tensor parallelism
splits every layer's weights and KV heads over ``tp`` devices and adds two all-reduces
per layer; pipeline stages hold ``1/pp`` of the layers each, and a token crosses them
one after another while up to ``pp`` micro-batches keep the stages busy; expert
parallelism (MoE) splits each layer's experts over ``ep`` groups that each serve part of
the batch and adds an all-to-all dispatch and combine per MoE layer. Decode reads the
weights once per step and micro-batch (for MoE only the experts the tokens touch) plus
every sequence's KV cache. All figures are roofline bounds (분석 계산); the collective and
stage-to-stage times come from :mod:`xpucalc.llm.comm`.

:class:`ServeEstimate` groups the answer: the layout it was given, ``memory`` (:class:`MemoryFit`),
``decode`` (:class:`Decode`) and ``prefill`` (:class:`Prefill`).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

from .._check import device_figure, fraction, non_negative, positive, positive_int
from ..catalog.store import Catalog
from ..core.device import Device
from . import comm
from .hardware import Hardware, resolve
from .model import Model, embedding_bytes_for

#: Share of a device's memory the serving engine may fill: vLLM's default ``gpu_memory_utilization``
#: (0.9; https://docs.vllm.ai/en/latest/configuration/engine_args.html). The other 10 % is the
#: reserve for the CUDA context, activations, CUDA graphs and fragmentation.
GPU_MEMORY_UTILIZATION = 0.9

#: The measured fixed costs of small collectives (``collective_latency.json``).
LATENCIES = Catalog("collective_latency.json", "allreduce_latency", "all-reduce latency")


def allreduce_latency_figure(key: str = "nvlink-8xh100") -> dict:
    """A catalog figure for the fixed cost of one small all-reduce (``collective_latency.json``).

    Keys: ``nvlink-8xh100`` (NCCL called eagerly through torch.distributed, 8 H100), ``nvlink-h100-custom-tp2``
    / ``-tp4`` / ``-tp8`` (the one-shot custom all-reduce of vLLM on H100) and ``pcie-8x4090-nccl`` (NCCL over
    PCIe without P2P, 8 RTX 4090); all third-party reports (문서 확인 of the named report).

    A dict with ``value`` (seconds), ``unit``, ``as_published``, ``conditions``, ``source``,
    ``checked`` and ``evidence``; the source's title and URL are under ``source_title`` / ``source_url``.
    KeyError names the known keys.
    """
    figure = LATENCIES.entry(key)
    src = LATENCIES.source(figure["source"])
    return {**figure, "source_title": src.title, "source_url": src.url}


#: Fixed cost of one small NCCL all-reduce called eagerly inside an NVLink node, seconds: 19.19 us for 128 B over
#: 8 H100s (a third-party report, see :func:`allreduce_latency_figure`): the upper end for NVLink. Serving
#: engines use ``allreduce_latency_s`` instead. Measure your own with
#: ``nccl-tests all_reduce_perf -b 8 -e 1M -g <tp>`` (the time column at small sizes).
ALLREDUCE_LATENCY_S = float(allreduce_latency_figure()["value"])

#: Interconnect kinds ``allreduce_latency_s`` knows.
INTERCONNECTS = ("nvlink", "pcie")


def allreduce_latency_key(interconnect: str, tp: int) -> str:
    """Catalog key of the per-message all-reduce cost a serving engine sees on ``interconnect`` at TP ``tp``.

    NVLink: the one-shot custom all-reduce vLLM, SGLang and TensorRT-LLM run for decode-sized messages
    (H100 figures for TP 2, 4 and 8; other degrees take the next larger one, TP > 8 the TP-8 figure).
    PCIe: NCCL, which engines fall back to where GPU peer-to-peer is not available (consumer cards).
    """
    if interconnect not in INTERCONNECTS:
        raise ValueError(f"interconnect must be one of {', '.join(INTERCONNECTS)}, got {interconnect!r}")
    t = positive_int(tp, "tp")
    if interconnect == "pcie":
        return "pcie-8x4090-nccl"
    return f"nvlink-h100-custom-tp{next((d for d in (2, 4, 8) if t <= d), 8)}"


def allreduce_latency_s(interconnect: str, tp: int) -> float:
    """Fixed cost of one small all-reduce, seconds, for ``interconnect`` (``"nvlink"`` or ``"pcie"``) at TP ``tp``.

    See :func:`allreduce_latency_key`; e.g. 11.8 us for NVLink at TP 8, 42.14 us over PCIe (문서 확인 of
    third-party reports). One rank moves nothing, but the figure is returned for any ``tp >= 1``.
    """
    return float(allreduce_latency_figure(allreduce_latency_key(interconnect, tp))["value"])

#: Bytes of one activation element sent by the all-reduces, all-to-alls and stage-to-stage hops (BF16).
ACTIVATION_BYTES = 2.0


@dataclass(frozen=True)
class MemoryFit:
    """Memory of the busiest device of the layout, bytes, and whether the batch fits in it.

    Attributes:
        capacity: the device's memory, bytes.
        usable: the share the engine may fill (``capacity x memory_utilization``), bytes.
        reserve: ``capacity - usable``: CUDA context, activations, fragmentation, bytes.
        weights: weights held by the device, bytes.
        kv_cache: KV cache of the sequences the device serves, bytes.
        fits: ``weights + kv_cache <= usable``.
        max_batch: largest batch of ``context``-token sequences that fits on the replica (0 if none).
    """

    capacity: float
    usable: float
    reserve: float
    weights: float
    kv_cache: float
    fits: bool
    max_batch: int

    @property
    def free(self) -> float:
        """Usable memory left after the weights and the KV cache, bytes (negative when it does not fit)."""
        return self.usable - self.weights - self.kv_cache


@dataclass(frozen=True)
class Decode:
    """One decode step of the replica: times in seconds, rates in tokens/s.

    Attributes:
        microbatch: sequences in the largest micro-batch.
        stage_s: time one pipeline stage spends on one micro-batch.
        step_s: time between two tokens of one sequence.
        allreduce_s: TP all-reduce time on one token's path.
        alltoall_s: EP all-to-all time on one token's path.
        comm_s: collective time on one token's path (all-reduces plus all-to-alls).
        hop_s: stage-to-stage transfers on one token's path.
        bound: ``"memory"`` or ``"compute"``, whichever limits a stage.
        tokens_per_s_per_request: what one sequence sees, ``1 / step_s``.
        tokens_per_s_total: all replicas together, ``dp x batch / step_s``.
    """

    microbatch: int
    stage_s: float
    step_s: float
    allreduce_s: float
    alltoall_s: float
    comm_s: float
    hop_s: float
    bound: str
    tokens_per_s_per_request: float
    tokens_per_s_total: float


@dataclass(frozen=True)
class Prefill:
    """Prefill of one prompt of ``context`` tokens, seconds.

    Attributes:
        time_s: the whole prefill, None when the device has no published dense peak.
        comm_s: its all-reduces and all-to-alls.
    """

    time_s: float | None
    comm_s: float


@dataclass(frozen=True)
class ServeEstimate:
    """What :func:`serve` returns: the layout it was given, then ``memory``, ``decode`` and ``prefill``.

    ``embedding_bytes`` is the bytes per embedding/head parameter used; ``allreduce_latency_s`` the fixed cost
    per all-reduce and ``latency_key`` its catalog key (None when the caller gave the latency).

    The five figures most callers want are also properties: ``fits``, ``max_batch``,
    ``decode_tokens_per_s_per_request``, ``decode_tokens_per_s_total`` and ``prefill_s``.
    """

    model: Model
    hardware: Hardware
    tp: int
    pp: int
    ep: int
    dp: int
    batch: int
    microbatches: int
    context: int
    weight_bytes: float
    kv_bytes: float
    memory: MemoryFit
    decode: Decode
    prefill: Prefill
    notes: tuple[str, ...] = field(default_factory=tuple)
    embedding_bytes: float = 2.0
    allreduce_latency_s: float = 0.0
    latency_key: str | None = None

    @property
    def n_devices(self) -> int:
        """Devices of the whole layout, tp x pp x ep x dp."""
        return self.tp * self.pp * self.ep * self.dp

    @property
    def fits(self) -> bool:
        """The weights and the batch's KV cache fit in every device's usable memory."""
        return self.memory.fits

    @property
    def max_batch(self) -> int:
        """Largest batch that fits on one replica."""
        return self.memory.max_batch

    @property
    def decode_tokens_per_s_per_request(self) -> float:
        """Decode rate one sequence sees, tokens/s."""
        return self.decode.tokens_per_s_per_request

    @property
    def decode_tokens_per_s_total(self) -> float:
        """Decode rate of all replicas together, tokens/s."""
        return self.decode.tokens_per_s_total

    @property
    def prefill_s(self) -> float | None:
        """Prefill time of one prompt, seconds; None without a published dense peak."""
        return self.prefill.time_s


def _check_tp(model: Model, tp: int) -> int:
    t = positive_int(tp, "tp")
    if model.num_heads % t or model.num_kv_heads % t:
        raise ValueError(f"tp={t} must divide the attention heads ({model.num_heads}) and the KV heads "
                         f"({model.num_kv_heads}) of {model.name}; valid tp values: {model.valid_tp()}")
    return t


def _check_ep(model: Model, ep: int) -> int:
    e = positive_int(ep, "ep")
    if e > 1 and not model.is_moe:
        raise ValueError(f"ep={e} needs a mixture-of-experts model, but {model.name} is dense (one MLP per layer): "
                         "use ep=1 and split the model with tp or pp")
    if model.num_experts % e:
        valid = [x for x in range(1, model.num_experts + 1) if model.num_experts % x == 0]
        raise ValueError(f"ep={e} must divide the {model.num_experts} experts per layer of {model.name}; "
                         f"valid ep values: {valid}")
    return e


def _check_microbatches(microbatches: int | None, pp: int, batch: int) -> int:
    if microbatches is None:
        return min(pp, batch)
    m = positive_int(microbatches, "microbatches")
    if m > batch:
        raise ValueError(f"microbatches={m} exceeds batch={batch}: every micro-batch needs at least one sequence; "
                         f"use microbatches <= batch")
    return m


def serve(model: Model, device: str | Device | Hardware, *, tp: int = 1, pp: int = 1, dp: int = 1, batch: int = 1,
          context: int = 4096, weight_bytes: float = 2.0, kv_bytes: float = 2.0,
          memory_utilization: float = GPU_MEMORY_UTILIZATION, precision: str | None = None,
          prefill_mfu: float = 0.4, link_bandwidth: float | None = None,
          allreduce_latency_s: float | None = None, ep: int = 1, microbatches: int | None = None,
          alltoall_latency_s: float | None = None, embedding_bytes: float | None = None,
          interconnect: str | None = None) -> ServeEstimate:
    """Roofline serving estimate of ``model`` on ``tp x pp x ep x dp`` devices of one kind.

    A replica has ``tp x pp x ep`` devices. Pipeline: the batch splits into ``microbatches``
    micro-batches of ``ceil(batch / microbatches)`` sequences (the largest sets the pace) and up
    to that many are in flight, one per stage. A token still crosses the ``pp`` stages one after
    another, so the time between two tokens of one sequence is
    ``max(microbatches x stage, pp x stage + (pp - 1) x hop)``; each stage reads its weights once
    per micro-batch. With one micro-batch this is the sum of the stages (PP adds memory, not speed);
    with ``pp`` micro-batches every stage is busy and the replica's aggregate rate rises up to
    ``pp`` times, the full factor where a stage's time scales with its micro-batch (KV- or
    compute-bound) and none where the weight read dominates.
    Expert parallelism (MoE only): each of the ``ep`` groups of ``tp x pp`` devices keeps a copy of
    attention, norms, router and embeddings and decodes ``batch / ep`` of the sequences, while each
    layer's experts are split evenly over the groups (the wide-EP layout of DeepSeek-V3 and vLLM);
    every MoE layer adds an all-to-all dispatch and combine of the tokens sent to other groups
    (uniform routing: a share ``(ep - 1) / ep`` of each token's ``k`` copies leaves its group).

    Args:
        model: the architecture (see ``xpucalc.llm.models.get``).
        device: catalog key (``"h100-sxm"``), an :class:`xpucalc.Device` with ``memory``, or a resolved
            ``xpucalc.llm.hardware.Hardware``.
        tp: tensor-parallel degree; must divide the query and the KV head counts.
        pp: pipeline stages (layers split evenly; one token visits the stages in turn).
        dp: data-parallel replicas (more requests at once, not a faster request).
        batch: sequences decoded together on one replica.
        context: tokens per sequence (prompt + output); the KV cache is sized for all of them.
        weight_bytes: bytes per weight of the blocks (2 BF16, 1 FP8/INT8, 0.5 INT4; add group metadata, e.g.
            ``xpucalc.llm.quant.get("awq").bytes_per_weight``, to count it).
        kv_bytes: bytes per KV-cache element (2 BF16, 1 FP8).
        memory_utilization: share of each device's capacity the engine may use (0.9 = vLLM's
            default); the rest is the stated reserve for the CUDA context, activations and fragmentation.
        precision: catalog precision of the dense peak (default: FP8 for 1-byte weights, else BF16).
        prefill_mfu: share of the dense peak prefill reaches, a fraction in (0, 1].
        link_bandwidth: one-way device-to-device bandwidth, bytes/s (default: the catalog's NVLink,
            else its PCIe host link).
        allreduce_latency_s: fixed cost per all-reduce and per stage-to-stage send, seconds; None picks
            ``serving.allreduce_latency_s`` for the device's own link (NVLink: an engine's one-shot custom
            all-reduce at this TP degree; PCIe: NCCL), 0 gives the bandwidth-only bound.
        ep: expert-parallel degree, 1 for dense models; must divide the experts per layer.
        microbatches: micro-batches in flight on the pipeline, 1 to ``batch`` (default: ``pp``, or
            ``batch`` when it is smaller).
        alltoall_latency_s: fixed cost per all-to-all, seconds (default: ``allreduce_latency_s``, an
            assumption: the catalog has no all-to-all figure).
        embedding_bytes: bytes per parameter of the embedding and the output head; None keeps them in
            16-bit under quantized weights (``max(weight_bytes, 2)``, as bitsandbytes, GPTQ, AWQ and FP8 do).
            Decode reads the whole head but only one embedding row per token.
        interconnect: ``"nvlink"`` or ``"pcie"``, the link whose per-message cost the default
            ``allreduce_latency_s`` takes; None: the device's own link (NVLink if the catalog lists it).

    Returns:
        a :class:`ServeEstimate`; ``prefill_s`` is None when the device has no published peak.
    """
    if not isinstance(model, Model):
        raise ValueError(f"model must be an xpucalc.llm.Model (see xpucalc.llm.models.get), got {type(model).__name__}")
    t = _check_tp(model, tp)
    p = positive_int(pp, "pp")
    if p > model.num_layers:
        raise ValueError(f"pp={p} exceeds the {model.num_layers} layers of {model.name}")
    e = _check_ep(model, ep)
    d = positive_int(dp, "dp")
    b = positive_int(batch, "batch")
    mb = _check_microbatches(microbatches, p, b)
    c = positive_int(context, "context")
    wb = positive(weight_bytes, "weight_bytes")
    kb = positive(kv_bytes, "kv_bytes")
    util = fraction(memory_utilization, "memory_utilization")
    mfu = fraction(prefill_mfu, "prefill_mfu")
    hw = resolve(device, precision, wb)
    link = device_figure(link_bandwidth, "link_bandwidth", "bytes/s") if link_bandwidth is not None else hw.link_bandwidth
    eb = embedding_bytes_for(wb, embedding_bytes)
    if interconnect is not None and interconnect not in INTERCONNECTS:
        raise ValueError(f"interconnect must be one of {', '.join(INTERCONNECTS)} (or None for the device's own link), "
                         f"got {interconnect!r}")
    latency_key = None
    if allreduce_latency_s is None:
        own = "nvlink" if hw.link_label.startswith("NVLink") else "pcie"
        kind = own if interconnect is None else interconnect
        latency_key = allreduce_latency_key(kind, t)
        lat = float(allreduce_latency_figure(latency_key)["value"])
    else:
        lat = non_negative(allreduce_latency_s, "allreduce_latency_s")
    lat_a2a = lat if alltoall_latency_s is None else non_negative(alltoall_latency_s, "alltoall_latency_s")
    shard = t * p
    act = model.hidden_size * ACTIVATION_BYTES          # one token's activation, bytes
    k = model.experts_per_token if model.is_moe else 0
    expert_flops = 2.0 * k * model.expert_params * model.num_layers   # per token, in the routed experts
    notes: list[str] = []
    if precision is not None and hw.peak_precision is not None and hw.peak_precision != precision:
        notes.append(f"precision {precision!r}: {hw.name} has no published dense {precision} peak in the catalog; "
                     f"the {hw.peak_precision} peak is used")

    def expert_read(tokens: int) -> float:
        """Expert weight bytes one device reads in a step over ``tokens`` tokens (0 for dense)."""
        if not model.is_moe:
            return 0.0
        return model.expected_experts_touched(tokens) * model.expert_params * model.num_layers * wb / (e * shard)

    def collectives(tokens_here: int, layers: float) -> tuple[float, float]:
        """TP all-reduces and EP all-to-alls over ``layers`` layers for ``tokens_here`` tokens on one group."""
        ar = layers * 2 * comm.allreduce_time_s(tokens_here * act, link, t, latency_s=lat)
        # each token's k expert copies are dispatched, the TP group splitting the sending
        a2a = layers * 2 * comm.alltoall_time_s(tokens_here * k * act / t, link, e, latency_s=lat_a2a) if e > 1 else 0.0
        return ar, a2a

    # memory of the busiest device: shared weights / (tp x pp), experts / (ep x tp x pp), KV of its group's sequences
    usable = hw.memory * util
    eh = model.n_embedding_head_params
    body = model.n_shared_params - eh               # attention, norms, router: read whole every step
    w_dev = (body * wb + eh * eb + model.n_expert_params * wb / e) / shard
    kv_seq_dev = c * model.kv_bytes_per_token(kb) / shard
    kv_dev = math.ceil(b / e) * kv_seq_dev
    fits = w_dev + kv_dev <= usable
    max_batch = e * max(0, math.floor((usable - w_dev) / kv_seq_dev + 1e-9))

    # one stage, one micro-batch of n sequences (n / ep of them on each expert-parallel group)
    n = math.ceil(b / mb)
    here = math.ceil(n / e)
    read = (body * wb + model.embedding_head_read_bytes(here, eb)) / shard + expert_read(n) + here * kv_seq_dev
    mem_t = read / hw.bandwidth
    flops = (here * (model.decode_flops_per_token(c) - expert_flops) + n * expert_flops / e) / shard
    comp_t = flops / hw.peak_flops if hw.peak_flops else 0.0
    ar, a2a = collectives(here, model.num_layers / p)
    stage = max(mem_t, comp_t) + ar + a2a
    hop = comm.send_time_s(here * act, link, latency_s=lat) if p > 1 else 0.0
    step = max(mb * stage, p * stage + (p - 1) * hop)
    bound = "compute" if comp_t > mem_t else "memory"
    if hw.peak_flops is None:
        notes.append("no published dense peak: decode is taken as bandwidth-bound and prefill is not computed")
    if model.is_moe:
        notes.append(f"MoE: a step over {n} token(s) touches {model.expected_experts_touched(n):.2f} of "
                     f"{model.num_experts} experts per layer (uniform routing)")
    if p > 1:
        notes.append(f"PP: {mb} micro-batch(es) of up to {n} sequence(s) in flight; a token crosses the {p} "
                     "stages in turn")

    # prefill of one prompt of `context` tokens on one expert-parallel group
    prefill = None
    pre_ar, pre_a2a = collectives(c, model.num_layers)
    if hw.peak_flops is not None:
        pre_flops = (c * (model.flops_per_token(c) - expert_flops) + c * expert_flops / e) / shard
        pre_read = (body * wb + model.embedding_head_read_bytes(c, eb)) / shard + expert_read(c)
        stage_t = max(pre_flops / (hw.peak_flops * mfu), pre_read / hw.bandwidth)
        prefill = p * stage_t + pre_ar + pre_a2a + (p - 1) * comm.send_time_s(c * act, link, latency_s=lat)
    if not fits:
        notes.append("does not fit: the speeds are what the layout would reach if it fitted")
    return ServeEstimate(
        model=model, hardware=hw, tp=t, pp=p, ep=e, dp=d, batch=b, microbatches=mb, context=c, weight_bytes=wb,
        kv_bytes=kb,
        memory=MemoryFit(capacity=hw.memory, usable=usable, reserve=hw.memory - usable, weights=w_dev, kv_cache=kv_dev,
                         fits=fits, max_batch=max_batch),
        decode=Decode(microbatch=n, stage_s=stage, step_s=step, allreduce_s=p * ar, alltoall_s=p * a2a,
                      comm_s=p * (ar + a2a), hop_s=(p - 1) * hop, bound=bound, tokens_per_s_per_request=1.0 / step,
                      tokens_per_s_total=d * b / step),
        prefill=Prefill(time_s=prefill, comm_s=pre_ar + pre_a2a),
        notes=tuple(notes), embedding_bytes=eb, allreduce_latency_s=lat, latency_key=latency_key)


def layouts(model: Model, device: str | Device | Hardware, n_devices: int, *, gpus_per_node: int = 8, batch: int = 1,
            context: int = 4096, weight_bytes: float = 2.0, kv_bytes: float = 2.0, ep: int = 1,
            **kwargs) -> list[ServeEstimate]:
    """Every TP x PP x DP layout of exactly ``n_devices`` devices that fits, fastest single request first.

    TP stays inside one node (``tp <= gpus_per_node``) and divides the head counts; with ``ep > 1``
    each replica has ``tp x pp x ep`` devices, so ``ep`` must divide ``n_devices``.
    """
    n = positive_int(n_devices, "n_devices")
    g = positive_int(gpus_per_node, "gpus_per_node")
    e = _check_ep(model, ep)
    if n % e:
        raise ValueError(f"ep={e} must divide n_devices={n} (a replica has tp x pp x ep devices)")
    out = []
    for t in model.valid_tp():
        if t > g or (n // e) % t:
            continue
        for p in range(1, n // (t * e) + 1):
            if (n // (t * e)) % p or p > model.num_layers:
                continue
            r = serve(model, device, tp=t, pp=p, ep=e, dp=n // (t * p * e), batch=batch, context=context,
                      weight_bytes=weight_bytes, kv_bytes=kv_bytes, **kwargs)
            if r.fits:
                out.append(r)
    out.sort(key=lambda r: (-r.decode_tokens_per_s_per_request, r.tp * r.pp))
    return out


__all__ = ["ACTIVATION_BYTES", "ALLREDUCE_LATENCY_S", "GPU_MEMORY_UTILIZATION", "INTERCONNECTS", "LATENCIES", "Decode",
           "MemoryFit", "Prefill", "ServeEstimate", "allreduce_latency_figure", "allreduce_latency_key",
           "allreduce_latency_s", "layouts", "serve"]
