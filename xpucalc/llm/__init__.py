"""LLM hardware arithmetic: scalar rules, a model described by its shapes, a model catalog, serving and training.

The scalar back-of-the-envelope rules are split by idea and re-exported here, so
``llm.kv_cache_bytes(...)`` keeps working:

- ``xpucalc.llm.compute``: 2N / 6N FLOP counts, the attention term, training time, MFU;
- ``xpucalc.llm.footprint``: weights, KV cache, serving and fine-tuning memory, number formats, quantised sizes;
- ``xpucalc.llm.rates``: decode and prefill bounds, their intensities, TTFT, latency and goodput;
- ``xpucalc.llm.comm``: every collective formula (all-reduce, FSDP, all-to-all, stage-to-stage sends),
  volumes and times, with or without a per-message latency; tensor-parallel activation traffic.

The model layer:

- ``xpucalc.llm.model``: ``Model``, a Llama/Mistral/Mixtral decoder built from its ``config.json``;
- ``xpucalc.llm.models``: the catalog of well-known configs (``models.get("llama-3-70b")``);
- ``xpucalc.llm.quant``: weight-quantization methods (bits, group metadata, what stays in 16-bit), a ``Model``'s
  quantized size;
- ``xpucalc.llm.hardware``: ``Hardware``, one device's capacity, bandwidth, dense peak and links;
- ``xpucalc.llm.serve``: ``serve``, a layout- and memory-aware serving estimate (the module is ``llm.serving``);
- ``xpucalc.llm.training``: training FLOPs and time of a ``Model`` with the attention term, implied MFU of
  published runs;
- ``xpucalc.llm.parallelism``: the ring schedule, the pipeline bubble and the parallelism decision flow;
- ``xpucalc.llm.memo``: the workload memo (its inputs in ``xpucalc.llm.memo_inputs``).

SI units throughout: bytes, FLOP, seconds, bytes/s, FLOP/s; parameter counts are plain counts.
"""
from __future__ import annotations

from . import hardware, models, quant, training
from . import serving
from .comm import (allreduce_time_s, allreduce_traffic_bytes, alltoall_time_s, fsdp_traffic_bytes,
                   tp_activation_bytes_per_forward)
from .compute import (CHINCHILLA_TOKENS_PER_PARAM, attention_flops_per_token, attention_ratio, chinchilla_tokens,
                      forward_flops_per_token, inference_flops, lora_train_flops_per_token, mfu,
                      mfu_from_device_hours, train_flops, train_flops_per_token, train_time_s)
from .footprint import (ADAMW_MIXED_BYTES_PER_PARAM, NF4_DOUBLE_QUANT_BITS, activation_bytes, devices_needed,
                        finetune_memory_breakdown, float_format, full_finetune_vram_bytes, inference_vram_bytes,
                        kv_cache_bytes, lora_adapter_params, lora_vram_bytes, quantized_weights_bytes,
                        training_state_bytes, weights_bytes)
from .model import Model
from .rates import (compute_tokens_per_s_bound, decode_critical_batch, decode_intensity, decode_intensity_limit,
                    decode_step_time_s,
                    decode_throughput, decode_tokens_per_s_bound, goodput, prefill_intensity, prefill_time_s,
                    request_latency_s, ttft_s)
from .serving import ServeEstimate, layouts, serve

__all__ = [
    # compute
    "CHINCHILLA_TOKENS_PER_PARAM", "attention_flops_per_token", "attention_ratio", "chinchilla_tokens",
    "forward_flops_per_token", "inference_flops", "lora_train_flops_per_token", "mfu", "mfu_from_device_hours", "train_flops",
    "train_flops_per_token", "train_time_s",
    # footprint
    "ADAMW_MIXED_BYTES_PER_PARAM", "NF4_DOUBLE_QUANT_BITS", "activation_bytes", "devices_needed",
    "finetune_memory_breakdown", "float_format", "full_finetune_vram_bytes", "inference_vram_bytes",
    "kv_cache_bytes", "lora_adapter_params", "lora_vram_bytes", "quantized_weights_bytes", "training_state_bytes",
    "weights_bytes",
    # rates
    "compute_tokens_per_s_bound", "decode_critical_batch", "decode_intensity", "decode_intensity_limit",
    "decode_step_time_s",
    "decode_throughput", "decode_tokens_per_s_bound", "goodput", "prefill_intensity", "prefill_time_s",
    "request_latency_s", "ttft_s",
    # comm
    "allreduce_time_s", "allreduce_traffic_bytes", "alltoall_time_s", "fsdp_traffic_bytes",
    "tp_activation_bytes_per_forward",
    # the model layer
    "Model", "ServeEstimate", "hardware", "layouts", "models", "quant", "serve", "serving", "training",
]
