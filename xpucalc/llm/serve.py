"""Serving estimate of one model on one kind of device in a TP x PP x DP layout, with memory capacity.

A request runs on one data-parallel replica of ``tp x pp`` devices. Tensor parallelism
splits every layer's weights and KV heads over ``tp`` devices and adds two all-reduces
per layer; pipeline stages hold ``1/pp`` of the layers each and, for one request, run
one after another, so PP adds memory but not speed to a single stream. Decode reads
the weights once per step for the whole batch (for MoE only the experts the batch
touches) plus every sequence's KV cache. All figures are roofline bounds (분석 계산).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

from .._check import fraction, non_negative, positive, positive_int
from .._data import load_json
from ..device import Device
from .hardware import Hardware, resolve
from .model import Model

#: Share of a device's memory the serving engine may fill: vLLM's default ``gpu_memory_utilization``
#: (0.9; https://docs.vllm.ai/en/latest/configuration/engine_args.html). The other 10 % is the
#: reserve for the CUDA context, activations, CUDA graphs and fragmentation.
GPU_MEMORY_UTILIZATION = 0.9


def allreduce_latency_figure(key: str = "nvlink-8xh100") -> dict:
    """The catalog figure for the fixed cost of one small all-reduce (``collective_latency.json``).

    A dict with ``value`` (seconds), ``unit``, ``as_published``, ``conditions``, ``source``,
    ``checked`` and ``evidence``; the source's title and URL are under ``source_title`` / ``source_url``.
    """
    doc = load_json("collective_latency.json")
    figures = doc["allreduce_latency"]
    if key not in figures:
        raise KeyError(f"no all-reduce latency {key!r} in collective_latency.json; known: {', '.join(sorted(figures))}")
    src = doc["sources"][figures[key]["source"]]
    return {**figures[key], "source_title": src["title"], "source_url": src["url"]}


#: Fixed cost of one small all-reduce inside an NVLink node, seconds: 19.19 us for 128 B over 8 H100s
#: (a third-party measurement, see :func:`allreduce_latency_figure` for its source and conditions).
#: Measure your own with ``nccl-tests all_reduce_perf -b 8 -e 1M -g <tp>`` (the time column at small sizes).
ALLREDUCE_LATENCY_S = float(allreduce_latency_figure()["value"])

#: Bytes of one activation element sent by the tensor-parallel all-reduces (BF16).
ACTIVATION_BYTES = 2.0


def allreduce_s(size_bytes: float, n: int, link_bandwidth: float, latency_s: float = ALLREDUCE_LATENCY_S) -> float:
    """One ring all-reduce of ``size_bytes`` over ``n`` devices, seconds: latency + 2 (n-1)/n x size / link.

    Returns 0 for ``n == 1``.
    """
    k = positive_int(n, "n")
    if k == 1:
        return 0.0
    return non_negative(latency_s, "latency_s") + 2.0 * (k - 1) / k * non_negative(size_bytes, "size_bytes") / positive(
        link_bandwidth, "link_bandwidth")


@dataclass(frozen=True)
class ServeEstimate:
    """What :func:`serve` returns. Memory figures are per device, bytes; rates tokens/s; times seconds."""

    model: Model
    hardware: Hardware
    tp: int
    pp: int
    dp: int
    batch: int
    context: int
    weight_bytes: float
    kv_bytes: float
    usable_memory: float
    reserve: float
    weights_per_device: float
    kv_per_device: float
    fits: bool
    max_batch: int
    decode_step_s: float
    decode_comm_s: float
    decode_bound: str
    decode_tokens_per_s_per_request: float
    decode_tokens_per_s_total: float
    prefill_s: float | None
    prefill_comm_s: float
    notes: tuple[str, ...] = field(default_factory=tuple)

    @property
    def n_devices(self) -> int:
        """Devices of the whole layout, tp x pp x dp."""
        return self.tp * self.pp * self.dp

    @property
    def memory_per_device(self) -> dict[str, float]:
        """Per-device memory: weights, KV cache, free (usable minus both), reserve, capacity, bytes."""
        return {"weights": self.weights_per_device, "kv_cache": self.kv_per_device,
                "free": self.usable_memory - self.weights_per_device - self.kv_per_device,
                "reserve": self.reserve, "capacity": self.hardware.memory}


def _check_tp(model: Model, tp: int) -> int:
    t = positive_int(tp, "tp")
    if model.num_heads % t or model.num_kv_heads % t:
        raise ValueError(f"tp={t} must divide the attention heads ({model.num_heads}) and the KV heads "
                         f"({model.num_kv_heads}) of {model.name}; valid tp values: {model.valid_tp()}")
    return t


def serve(model: Model, device: str | Device | Hardware, *, tp: int = 1, pp: int = 1, dp: int = 1, batch: int = 1,
          context: int = 4096, weight_bytes: float = 2.0, kv_bytes: float = 2.0,
          memory_utilization: float = GPU_MEMORY_UTILIZATION, precision: str | None = None,
          prefill_mfu: float = 0.4, link_bandwidth: float | None = None,
          allreduce_latency_s: float = ALLREDUCE_LATENCY_S) -> ServeEstimate:
    """Roofline serving estimate of ``model`` on ``tp x pp x dp`` devices of one kind.

    Args:
        model: the architecture (see ``xpucalc.llm.models.get``).
        device: catalog key (``"h100-sxm"``), an :class:`xpucalc.Device` with ``memory``, or a resolved
            ``xpucalc.llm.hardware.Hardware``.
        tp: tensor-parallel degree; must divide the query and the KV head counts.
        pp: pipeline stages (layers split evenly; one request visits the stages in turn).
        dp: data-parallel replicas (more requests at once, not a faster request).
        batch: sequences decoded together on one replica.
        context: tokens per sequence (prompt + output); the KV cache is sized for all of them.
        weight_bytes: bytes per weight (2 BF16, 1 FP8/INT8, 0.5 INT4).
        kv_bytes: bytes per KV-cache element (2 BF16, 1 FP8).
        memory_utilization: share of each device's capacity the engine may use (0.9 = vLLM's
            default); the rest is the stated reserve for the CUDA context, activations and fragmentation.
        precision: catalog precision of the dense peak (default: FP8 for 1-byte weights, else BF16).
        prefill_mfu: share of the dense peak prefill reaches, a fraction in (0, 1].
        link_bandwidth: one-way device-to-device bandwidth, bytes/s (default: the catalog's NVLink,
            else its PCIe host link).
        allreduce_latency_s: fixed cost per all-reduce, seconds (see ``ALLREDUCE_LATENCY_S``).

    Returns:
        a :class:`ServeEstimate`; ``prefill_s`` is None when the device has no published peak.
    """
    if not isinstance(model, Model):
        raise ValueError(f"model must be an xpucalc.llm.Model (see xpucalc.llm.models.get), got {type(model).__name__}")
    t = _check_tp(model, tp)
    p = positive_int(pp, "pp")
    if p > model.num_layers:
        raise ValueError(f"pp={p} exceeds the {model.num_layers} layers of {model.name}")
    d = positive_int(dp, "dp")
    b = positive_int(batch, "batch")
    c = positive_int(context, "context")
    wb = positive(weight_bytes, "weight_bytes")
    kb = positive(kv_bytes, "kv_bytes")
    util = fraction(memory_utilization, "memory_utilization")
    mfu = fraction(prefill_mfu, "prefill_mfu")
    hw = resolve(device, precision, wb)
    link = positive(link_bandwidth, "link_bandwidth") if link_bandwidth is not None else hw.link_bandwidth
    lat = non_negative(allreduce_latency_s, "allreduce_latency_s")
    shard = t * p
    notes: list[str] = []

    # memory per device: an even split of weights and KV over tp x pp devices
    usable = hw.memory * util
    w_dev = model.weights_bytes(wb) / shard
    kv_seq_dev = c * model.kv_bytes_per_token(kb) / shard
    kv_dev = b * kv_seq_dev
    fits = w_dev + kv_dev <= usable
    max_batch = max(0, math.floor((usable - w_dev) / kv_seq_dev + 1e-9))

    # one decode step (every sequence of the batch produces one token)
    layers_per_stage = model.num_layers / p
    read = (model.weights_read_per_step(b, wb) + b * c * model.kv_bytes_per_token(kb)) / shard
    mem_t = read / hw.bandwidth
    comp_t = b * model.decode_flops_per_token(c) / shard / hw.peak_flops if hw.peak_flops else 0.0
    comm_stage = layers_per_stage * 2 * allreduce_s(b * model.hidden_size * ACTIVATION_BYTES, t, link, lat)
    hop = (lat + b * model.hidden_size * ACTIVATION_BYTES / link) if p > 1 else 0.0
    step = p * (max(mem_t, comp_t) + comm_stage) + (p - 1) * hop
    bound = "compute" if comp_t > mem_t else "memory"
    if hw.peak_flops is None:
        notes.append("no published dense peak: decode is taken as bandwidth-bound and prefill is not computed")
    if model.is_moe:
        notes.append(f"MoE: a step over {b} token(s) touches {model.expected_experts_touched(b):.2f} of "
                     f"{model.num_experts} experts per layer (uniform routing)")

    # prefill of one prompt of `context` tokens
    prefill = None
    pre_comm = model.num_layers * 2 * allreduce_s(c * model.hidden_size * ACTIVATION_BYTES, t, link, lat)
    if hw.peak_flops is not None:
        flops = c * model.flops_per_token(c) / shard
        stage_t = max(flops / (hw.peak_flops * mfu), model.weights_bytes(wb) / shard / hw.bandwidth)
        prefill = p * stage_t + pre_comm + (p - 1) * (lat + c * model.hidden_size * ACTIVATION_BYTES / link)
    if not fits:
        notes.append("does not fit: the speeds are what the layout would reach if it fitted")
    return ServeEstimate(model, hw, t, p, d, b, c, wb, kb, usable, hw.memory - usable, w_dev, kv_dev, fits,
                         max_batch, step, p * comm_stage, bound, 1.0 / step, d * b / step, prefill, pre_comm,
                         tuple(notes))


def layouts(model: Model, device: str | Device | Hardware, n_devices: int, *, gpus_per_node: int = 8, batch: int = 1,
            context: int = 4096, weight_bytes: float = 2.0, kv_bytes: float = 2.0,
            **kwargs) -> list[ServeEstimate]:
    """Every TP x PP x DP layout of exactly ``n_devices`` devices that fits, fastest single request first.

    TP stays inside one node (``tp <= gpus_per_node``) and divides the head counts.
    """
    n = positive_int(n_devices, "n_devices")
    g = positive_int(gpus_per_node, "gpus_per_node")
    out = []
    for t in model.valid_tp():
        if t > g or n % t:
            continue
        for p in range(1, n // t + 1):
            if (n // t) % p or p > model.num_layers:
                continue
            r = serve(model, device, tp=t, pp=p, dp=n // (t * p), batch=batch, context=context,
                      weight_bytes=weight_bytes, kv_bytes=kv_bytes, **kwargs)
            if r.fits:
                out.append(r)
    out.sort(key=lambda r: (-r.decode_tokens_per_s_per_request, r.tp * r.pp))
    return out


__all__ = ["ALLREDUCE_LATENCY_S", "GPU_MEMORY_UTILIZATION", "Hardware", "ServeEstimate", "allreduce_latency_figure",
           "allreduce_s", "layouts", "serve"]
