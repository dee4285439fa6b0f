"""Memory rules from scalars: weights, KV cache, serving and training memory, number formats, quantised sizes.

Sizes are bytes, ``n_params`` a count. The architecture-aware versions (``Model.kv_bytes_per_token``,
``serve``'s per-device breakdown) live in ``xpucalc.llm.model`` and ``xpucalc.llm.serve``.
"""
from __future__ import annotations

import math

from .._check import check_bool, device_figure, fraction, non_negative, positive, positive_int

#: Bytes per trainable parameter under AdamW mixed precision: 16-bit weight 2 + gradient 2 + FP32 m 4 + v 4 + master 4.
ADAMW_MIXED_BYTES_PER_PARAM = 16.0

#: NF4 storage per weight with QLoRA's double quantisation: 4 bits + 0.127 bits of constants (Dettmers et al. 2023).
NF4_DOUBLE_QUANT_BITS = 4.127


def weights_bytes(n_params: float, bytes_per_param: float) -> float:
    """Bytes of the weights alone: params x bytes/param (2 for FP16/BF16, 0.5 for 4-bit)."""
    return positive(n_params, "n_params") * positive(bytes_per_param, "bytes_per_param")


def kv_cache_bytes(layers: int, kv_heads: int, head_dim: int, seq_len: int, batch: int = 1,
                   dtype_bytes: float = 2) -> float:
    """KV-cache size, bytes: 2 (K and V) x layers x batch x seq_len x kv_heads x head_dim x dtype_bytes.

    With grouped-query attention ``kv_heads`` is smaller than the query head count,
    which is why the hidden size must not be used in place of kv_heads x head_dim.
    """
    return (2.0 * positive_int(layers, "layers") * positive_int(batch, "batch") * positive_int(seq_len, "seq_len")
            * positive_int(kv_heads, "kv_heads") * positive_int(head_dim, "head_dim") * positive(dtype_bytes, "dtype_bytes"))


def inference_vram_bytes(n_params: float, bytes_per_param: float, kv_bytes: float = 0.0,
                         overhead: float = 1.2) -> float:
    """Rule of thumb for serving: weights x ``overhead`` (1.2: runtime, activations) + KV cache, bytes."""
    return weights_bytes(n_params, bytes_per_param) * positive(overhead, "overhead") + non_negative(kv_bytes, "kv_bytes")


def lora_vram_bytes(n_params: float, factor: float = 1.5) -> float:
    """Rule of thumb for LoRA in BF16 (batch 1, gradient checkpointing): N x 2 bytes x 1.5, bytes."""
    return weights_bytes(n_params, 2.0) * positive(factor, "factor")


def full_finetune_vram_bytes(n_params: float, bytes_per_param: float = 20.0) -> float:
    """Rule of thumb for full fine-tuning with AdamW in BF16 mixed precision: ~20 bytes per parameter.

    16 of the 20 bytes are the optimizer state (see :func:`training_state_bytes`); the other ~4 are an
    allowance for activations and buffers at a modest batch and sequence length, not a computed value.
    """
    return weights_bytes(n_params, bytes_per_param)


def training_state_bytes(n_params: float) -> dict[str, float]:
    """Per-parameter training state with AdamW mixed precision, bytes, before activations.

    FP16/BF16 weights (2) + gradients (2) + Adam m and v in FP32 (4 + 4) + FP32
    master weights (4) = 16 bytes per parameter.
    """
    n = positive(n_params, "n_params")
    return {"weights": 2 * n, "gradients": 2 * n, "adam_m": 4 * n, "adam_v": 4 * n, "master_weights": 4 * n}


def devices_needed(bytes_needed: float, device_memory: float, usable_fraction: float = 1.0) -> int:
    """Smallest number of devices whose memory holds ``bytes_needed`` (perfect sharding), count.

    Args:
        bytes_needed: total memory the job needs, bytes.
        device_memory: memory of one device, bytes.
        usable_fraction: share of each device's memory the job may use (e.g. 0.9).

    Raises ValueError for a device memory under 1 MB, which is a size typed in GB (``device_memory=80``: pass 80e9).
    """
    per = device_figure(device_memory, "device_memory", "bytes") * fraction(usable_fraction, "usable_fraction")
    return max(1, math.ceil(positive(bytes_needed, "bytes_needed") / per - 1e-12))


def float_format(exponent_bits: int, mantissa_bits: int, ieee_special: bool = True) -> dict[str, float]:
    """Range and precision of a binary floating-point format from its field widths.

    Args:
        exponent_bits: width of the exponent field, bits (8 for FP32/BF16/TF32, 5 for FP16, 4 or 5 for FP8).
        mantissa_bits: width of the stored fraction, bits (23 FP32, 10 FP16/TF32, 7 BF16, 3 E4M3, 2 E5M2).
        ieee_special: True when the all-ones exponent is reserved for inf/NaN (IEEE style, also FP8 E5M2);
            False for FP8 E4M3 ("fn"), which keeps that exponent for numbers and reserves only the
            all-ones mantissa there for NaN.

    Returns:
        dict with ``bits`` (sign + fields), ``bias``, ``max`` (largest finite value), ``min_normal``,
        ``epsilon`` (2^-m, spacing just above 1) and ``unit_roundoff`` (2^-(m+1), largest relative
        rounding error), all dimensionless.
    """
    e = positive_int(exponent_bits, "exponent_bits")
    m = _nonneg_int(mantissa_bits, "mantissa_bits")
    if e < 2:
        raise ValueError(f"exponent_bits must be >= 2 for a floating-point format, got {exponent_bits!r}")
    bias = 2 ** (e - 1) - 1
    if ieee_special:
        emax = (2 ** e - 2) - bias
        max_val = (2.0 - 2.0 ** -m) * 2.0 ** emax
    else:
        if m < 1:
            raise ValueError("mantissa_bits must be >= 1 when ieee_special is False (the NaN needs a mantissa pattern)")
        emax = (2 ** e - 1) - bias
        max_val = (2.0 - 2.0 * 2.0 ** -m) * 2.0 ** emax
    return {"bits": float(1 + e + m), "bias": float(bias), "max": max_val, "min_normal": 2.0 ** (1 - bias),
            "epsilon": 2.0 ** -m, "unit_roundoff": 2.0 ** -(m + 1)}


def _nonneg_int(value: object, name: str) -> int:
    x = non_negative(value, name)
    if x != int(x):
        raise ValueError(f"{name} must be a whole number >= 0, got {value!r}")
    return int(x)


def quantized_weights_bytes(n_params: float, bits: float, group_size: int | None = 128,
                            bytes_per_group: float = 2.0, unquantized_params: float = 0.0,
                            unquantized_bytes: float = 2.0) -> dict[str, float]:
    """Size of group-quantised weights, bytes, split into its parts.

    Args:
        n_params: all parameters of the model (count).
        bits: bits per quantised weight (4 for INT4/NF4, 8 for INT8).
        group_size: weights sharing one scale (128 is common for GPTQ/AWQ, 64 for NF4);
            None for no per-group metadata.
        bytes_per_group: metadata per group, bytes (an FP16 scale = 2; scale + zero point = 4).
        unquantized_params: parameters kept in 16-bit (e.g. embeddings, output head), count.
        unquantized_bytes: bytes per kept parameter (2 for FP16/BF16).

    Returns:
        dict with ``weights`` (quantised part), ``scales`` (group metadata), ``unquantized`` and ``total``.
    """
    n = positive(n_params, "n_params")
    b = positive(bits, "bits")
    keep = non_negative(unquantized_params, "unquantized_params")
    if keep >= n:
        raise ValueError(f"unquantized_params ({keep:g}) must be smaller than n_params ({n:g})")
    q = n - keep
    weights = q * b / 8.0
    scales = 0.0 if group_size is None else q / positive_int(group_size, "group_size") * non_negative(
        bytes_per_group, "bytes_per_group")
    kept = keep * positive(unquantized_bytes, "unquantized_bytes")
    return {"weights": weights, "scales": scales, "unquantized": kept, "total": weights + scales + kept}


def lora_adapter_params(layers: int, matrix_shapes: list[tuple[int, int]], rank: int) -> float:
    """Trainable LoRA parameters: rank x (d_in + d_out) per adapted matrix, summed over layers (count).

    Args:
        layers: transformer layers.
        matrix_shapes: (d_in, d_out) of each adapted matrix in one layer.
        rank: LoRA rank r.
    """
    L = positive_int(layers, "layers")
    r = positive_int(rank, "rank")
    if not matrix_shapes:
        raise ValueError("matrix_shapes must list at least one (d_in, d_out) pair")
    per_layer = sum(positive_int(a, "matrix_shapes d_in") + positive_int(b, "matrix_shapes d_out")
                    for a, b in matrix_shapes)
    return float(L * r * per_layer)


def activation_bytes(layers: int, hidden: int, heads: int, seq_len: int, batch: int = 1,
                     recompute: bool = False, flash_attention: bool = False) -> float:
    """Activation memory of a transformer's layers during training, 16-bit activations, bytes.

    Korthikanti et al. (2022), no tensor parallelism: each layer stores
    ``s b h (34 + 5 a s / h)`` bytes; FlashAttention drops the ``5 a s / h`` score term.
    With full recomputation only each layer's input (``2 s b h`` bytes) is kept, plus
    one layer's activations while it is recomputed. Embedding and logits are not counted.

    Args:
        layers: transformer layers L.
        hidden: model width h.
        heads: attention heads a.
        seq_len: tokens per sequence s.
        batch: sequences per micro-batch b.
        recompute: full activation checkpointing.
        flash_attention: attention scores are not stored.
    """
    L = positive_int(layers, "layers")
    h = positive_int(hidden, "hidden")
    a = positive_int(heads, "heads")
    s = positive_int(seq_len, "seq_len")
    b = positive_int(batch, "batch")
    per_layer = s * b * h * (34.0 + (0.0 if check_bool(flash_attention, "flash_attention") else 5.0 * a * s / h))
    if check_bool(recompute, "recompute"):
        return L * 2.0 * s * b * h + per_layer
    return L * per_layer


def finetune_memory_breakdown(method: str, n_params: float, activations: float = 0.0,
                              trainable_params: float | None = None, kept_16bit_params: float = 0.0) -> dict[str, float]:
    """Memory of one fine-tuning method split into parts, bytes (for a stacked bar).

    Args:
        method: ``"full"`` (all weights trained with AdamW mixed precision), ``"lora"`` (16-bit
            frozen base + adapter) or ``"qlora"`` (NF4 base with double quantisation + adapter).
        n_params: parameters of the base model (count).
        activations: activation memory, bytes (see :func:`activation_bytes`); an assumption of the caller.
        trainable_params: adapter parameters for lora/qlora (count), see :func:`lora_adapter_params`.
        kept_16bit_params: for qlora, base parameters bitsandbytes leaves in 16-bit (count): the token
            embedding (an ``nn.Embedding``, never converted) and the output head (``lm_head``, skipped);
            ``Model.n_embedding_head_params``. Ignored by full and lora, which hold everything in 16-bit.

    Returns:
        dict of part name -> bytes (English keys: ``weights``, ``gradients``, ``adam_m``, ``adam_v``,
        ``master_weights``, ``base_weights``, ``adapter_state``, ``activations``).
    """
    n = positive(n_params, "n_params")
    act = non_negative(activations, "activations")
    if method == "full":
        parts = training_state_bytes(n)
    elif method in ("lora", "qlora"):
        if trainable_params is None:
            raise ValueError(f"trainable_params is required for method {method!r} (see lora_adapter_params)")
        t = positive(trainable_params, "trainable_params")
        if t >= n:
            raise ValueError(f"trainable_params ({t:g}) must be smaller than n_params ({n:g})")
        keep = non_negative(kept_16bit_params, "kept_16bit_params")
        if keep >= n:
            raise ValueError(f"kept_16bit_params ({keep:g}) must be smaller than n_params ({n:g})")
        base = 2.0 * n if method == "lora" else (n - keep) * NF4_DOUBLE_QUANT_BITS / 8.0 + 2.0 * keep
        parts = {"base_weights": base, "adapter_state": ADAMW_MIXED_BYTES_PER_PARAM * t}
    else:
        raise ValueError(f"method must be 'full', 'lora' or 'qlora', got {method!r}")
    parts["activations"] = act
    return parts


__all__ = ["ADAMW_MIXED_BYTES_PER_PARAM", "NF4_DOUBLE_QUANT_BITS", "activation_bytes", "devices_needed",
           "finetune_memory_breakdown", "float_format", "full_finetune_vram_bytes", "inference_vram_bytes",
           "kv_cache_bytes", "lora_adapter_params", "lora_vram_bytes", "quantized_weights_bytes",
           "training_state_bytes", "weights_bytes"]
