"""Back-of-the-envelope LLM hardware arithmetic from scalars (no architecture), in SI units.

Conventions: a multiply-add is 2 FLOP; ``n_params`` is a count (70e9 for a 70B
model); sizes are bytes, rates FLOP/s or bytes/s, times seconds.
"""
from __future__ import annotations

from .._check import fraction, non_negative, positive, positive_int

#: Chinchilla's compute-optimal ratio of training tokens to parameters.
CHINCHILLA_TOKENS_PER_PARAM = 20.0


# --- FLOP counts -------------------------------------------------------------
def forward_flops_per_token(n_params: float) -> float:
    """Forward (inference) FLOP per token, ignoring attention: 2N."""
    return 2.0 * positive(n_params, "n_params")


def train_flops_per_token(n_params: float) -> float:
    """Training FLOP per token, forward 2N + backward 4N = 6N (attention ignored)."""
    return 6.0 * positive(n_params, "n_params")


def train_flops(n_params: float, tokens: float) -> float:
    """Total training FLOP, 6 N T."""
    return train_flops_per_token(n_params) * positive(tokens, "tokens")


def inference_flops(n_params: float, tokens: float) -> float:
    """Total inference FLOP for ``tokens`` processed tokens, 2 N T."""
    return forward_flops_per_token(n_params) * positive(tokens, "tokens")


def attention_flops_per_token(layers: int, d_model: float, seq_len: float, training: bool = True) -> float:
    """The attention-score term the 2N/6N rules leave out, FLOP per token.

    Forward: QK^T and AV each cost 2 * seq_len * d_model FLOP per layer per token,
    so 4 L d s; training triples it to 12 L d s. (Per sequence of length s the
    forward term is 4 L d s^2, the cheat-sheet form.)
    """
    base = 4.0 * positive_int(layers, "layers") * positive(d_model, "d_model") * positive(seq_len, "seq_len")
    return 3.0 * base if training else base


def attention_ratio(n_params: float, layers: int, d_model: float, seq_len: float) -> float:
    """Attention term over the 6N term for training: 12 L d s / 6N.

    With N ~ 12 L d^2 this is about s / (6 d): the term is negligible when the
    sequence is much shorter than six times the model width (s << 6d).
    """
    return attention_flops_per_token(layers, d_model, seq_len, True) / train_flops_per_token(n_params)


# --- memory ------------------------------------------------------------------
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


# --- rates and times ---------------------------------------------------------
def decode_tokens_per_s_bound(model_bytes: float, bandwidth: float) -> float:
    """Upper bound on single-stream decode speed, tokens/s: bandwidth / bytes read per token.

    Every generated token reads all weights once (KV cache ignored unless added to
    ``model_bytes``).

    Args:
        model_bytes: bytes read per token, bytes.
        bandwidth: memory bandwidth, bytes/s.
    """
    return positive(bandwidth, "bandwidth") / positive(model_bytes, "model_bytes")


def compute_tokens_per_s_bound(n_params: float, peak_flops: float) -> float:
    """Upper bound on tokens/s from compute alone: peak / 2N."""
    return positive(peak_flops, "peak_flops") / forward_flops_per_token(n_params)


def decode_step_time_s(n_params: float, batch: int, bytes_per_param: float, peak_flops: float,
                       bandwidth: float, kv_bytes_per_seq: float = 0.0) -> float:
    """Roofline time of one decode step for ``batch`` sequences, seconds.

    The weights are read once for the whole batch, each sequence reads its own KV
    cache, and every sequence needs 2N FLOP: max(2N*batch/peak, (weights + batch*kv)/bandwidth).
    """
    b = positive_int(batch, "batch")
    compute = forward_flops_per_token(n_params) * b / positive(peak_flops, "peak_flops")
    traffic = weights_bytes(n_params, bytes_per_param) + b * non_negative(kv_bytes_per_seq, "kv_bytes_per_seq")
    return max(compute, traffic / positive(bandwidth, "bandwidth"))


def decode_throughput(n_params: float, batch: int, bytes_per_param: float, peak_flops: float,
                      bandwidth: float, kv_bytes_per_seq: float = 0.0) -> float:
    """Tokens/s for the whole batch at the roofline limit: batch / decode_step_time_s(...)."""
    return positive_int(batch, "batch") / decode_step_time_s(n_params, batch, bytes_per_param, peak_flops,
                                                              bandwidth, kv_bytes_per_seq)


def decode_critical_batch(n_params: float, bytes_per_param: float, peak_flops: float, bandwidth: float) -> float:
    """Batch size at which decode turns compute-bound (KV cache ignored), sequences.

    2N*B/peak = N*bytes/bandwidth  =>  B = peak * bytes_per_param / (2 * bandwidth).
    """
    positive(n_params, "n_params")
    return positive(peak_flops, "peak_flops") * positive(bytes_per_param, "bytes_per_param") / (
        2.0 * positive(bandwidth, "bandwidth"))


def train_time_s(n_params: float, tokens: float, n_devices: int, peak_flops: float, mfu: float) -> float:
    """Wall-clock training time, seconds: 6NT / (n_devices x peak_flops x mfu).

    Args:
        n_params: parameters (count).
        tokens: training tokens (count).
        n_devices: accelerators working together (>= 1).
        peak_flops: dense peak per device for the training precision, FLOP/s.
        mfu: model FLOPs utilisation as a fraction in (0, 1] (0.4 for 40 %).
    """
    return train_flops(n_params, tokens) / (positive_int(n_devices, "n_devices") * positive(peak_flops, "peak_flops")
                                            * fraction(mfu, "mfu"))


def chinchilla_tokens(n_params: float) -> float:
    """Compute-optimal training tokens by the Chinchilla rule, T = 20 N."""
    return CHINCHILLA_TOKENS_PER_PARAM * positive(n_params, "n_params")


def mfu(n_params: float, tokens_per_s: float, n_devices: int, peak_flops: float) -> float:
    """Model FLOPs utilisation: 6N x tokens/s / (n_devices x peak_flops), a fraction.

    Args:
        n_params: parameters (count).
        tokens_per_s: measured training throughput of the whole job, tokens/s.
        n_devices: accelerators used.
        peak_flops: dense peak per device, FLOP/s.

    Raises:
        ValueError: when the result exceeds 1 — the throughput claimed is faster than the
            devices' peak, so one of the inputs is wrong (a sparse peak, a per-GPU rate given as
            the job's, too few devices).
    """
    m = train_flops_per_token(n_params) * positive(tokens_per_s, "tokens_per_s") / (
        positive_int(n_devices, "n_devices") * positive(peak_flops, "peak_flops"))
    return _at_most_one(m, "tokens_per_s")


def _at_most_one(m: float, culprit: str) -> float:
    if m > 1.0:
        raise ValueError(f"MFU would be {m:.3f} (> 1, faster than the peak): check {culprit}, n_devices and "
                         "peak_flops (dense, per device)")
    return m


def mfu_from_device_hours(n_params: float, tokens: float, device_hours: float, peak_flops: float) -> float:
    """MFU implied by a reported budget: 6NT / (device_hours x 3600 x peak_flops), a fraction (ValueError if > 1)."""
    return _at_most_one(train_flops(n_params, tokens) / (positive(device_hours, "device_hours") * 3600.0
                                                         * positive(peak_flops, "peak_flops")), "device_hours")


# --- communication -----------------------------------------------------------
def allreduce_traffic_bytes(size_bytes: float, n_ranks: int) -> float:
    """Bytes each rank sends in a ring all-reduce: 2 (n-1)/n x size (reduce-scatter + all-gather)."""
    n = positive_int(n_ranks, "n_ranks")
    if n < 2:
        raise ValueError(f"n_ranks must be >= 2 for an all-reduce, got {n_ranks!r}")
    return 2.0 * (n - 1) / n * positive(size_bytes, "size_bytes")


def allreduce_time_s(size_bytes: float, bandwidth: float, n_ranks: int | None = None) -> float:
    """Bandwidth-bound ring all-reduce time, seconds.

    Args:
        size_bytes: size of the tensor reduced (e.g. the gradients), bytes.
        bandwidth: per-rank link bandwidth one way, bytes/s.
        n_ranks: ranks in the ring; ``None`` gives the large-n limit 2S/B.

    Returns:
        ``2 (n-1)/n * size / bandwidth`` (latency terms ignored).
    """
    b = positive(bandwidth, "bandwidth")
    if n_ranks is None:
        return 2.0 * positive(size_bytes, "size_bytes") / b
    return allreduce_traffic_bytes(size_bytes, n_ranks) / b


def tp_activation_bytes_per_forward(layers: int, hidden: int, seq_len: int, batch: int = 1,
                                    dtype_bytes: float = 2, allreduces_per_layer: int = 2) -> float:
    """Activation bytes all-reduced by Megatron tensor parallelism in one forward pass.

    Each of the two all-reduces per layer (after attention, after the MLP) moves a
    [batch, seq, hidden] activation: layers x 2 x batch x seq x hidden x dtype_bytes.
    """
    per = positive_int(batch, "batch") * positive_int(seq_len, "seq_len") * positive_int(hidden, "hidden") * positive(
        dtype_bytes, "dtype_bytes")
    return positive_int(layers, "layers") * positive_int(allreduces_per_layer, "allreduces_per_layer") * per


# --- number formats, quantised sizes, fine-tuning memory (added for the precision page) ----------------
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
    per_layer = s * b * h * (34.0 + (0.0 if flash_attention else 5.0 * a * s / h))
    if recompute:
        return L * 2.0 * s * b * h + per_layer
    return L * per_layer


#: Bytes per trainable parameter under AdamW mixed precision: 16-bit weight 2 + gradient 2 + FP32 m 4 + v 4 + master 4.
ADAMW_MIXED_BYTES_PER_PARAM = 16.0

#: NF4 storage per weight with QLoRA's double quantisation: 4 bits + 0.127 bits of constants (Dettmers et al. 2023).
NF4_DOUBLE_QUANT_BITS = 4.127


def finetune_memory_breakdown(method: str, n_params: float, activations: float = 0.0,
                              trainable_params: float | None = None) -> dict[str, float]:
    """Memory of one fine-tuning method split into parts, bytes (for a stacked bar).

    Args:
        method: ``"full"`` (all weights trained with AdamW mixed precision), ``"lora"`` (16-bit
            frozen base + adapter) or ``"qlora"`` (NF4 base with double quantisation + adapter).
        n_params: parameters of the base model (count).
        activations: activation memory, bytes (see :func:`activation_bytes`); an assumption of the caller.
        trainable_params: adapter parameters for lora/qlora (count), see :func:`lora_adapter_params`.

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
        base = 2.0 * n if method == "lora" else n * NF4_DOUBLE_QUANT_BITS / 8.0
        parts = {"base_weights": base, "adapter_state": ADAMW_MIXED_BYTES_PER_PARAM * t}
    else:
        raise ValueError(f"method must be 'full', 'lora' or 'qlora', got {method!r}")
    parts["activations"] = act
    return parts


# --- roofline view of prefill and decode, serving metrics -------------------------------------------------
def decode_intensity(batch: int, bytes_per_param: float, kv_bytes_per_seq_per_param: float = 0.0) -> float:
    """Arithmetic intensity of one decode step, FLOP/byte.

    ``2 N b`` FLOP over ``N x bytes_per_param + b x KV`` bytes; with the KV traffic given
    per parameter (KV bytes of one sequence / N) the model size cancels:
    ``2 b / (bytes_per_param + b x kv_bytes_per_seq_per_param)``. FP16 at batch 1: 1 FLOP/B.
    """
    b = positive_int(batch, "batch")
    return 2.0 * b / (positive(bytes_per_param, "bytes_per_param")
                      + b * non_negative(kv_bytes_per_seq_per_param, "kv_bytes_per_seq_per_param"))


def prefill_intensity(prompt_tokens: int, bytes_per_param: float) -> float:
    """Arithmetic intensity of a prefill pass over the weights, FLOP/byte: 2 s / bytes_per_param.

    The weights are read once for all ``prompt_tokens`` tokens (attention and
    activation traffic ignored), so with FP16 the intensity equals the prompt length.
    """
    return 2.0 * positive_int(prompt_tokens, "prompt_tokens") / positive(bytes_per_param, "bytes_per_param")


def prefill_time_s(n_params: float, prompt_tokens: int, bytes_per_param: float, peak_flops: float,
                   bandwidth: float, mfu: float = 1.0) -> float:
    """Roofline time of prefilling one prompt, seconds: max(2 N s / (peak x mfu), N x bytes / bandwidth).

    Args:
        n_params: parameters (count).
        prompt_tokens: prompt length s, tokens.
        bytes_per_param: bytes per weight.
        peak_flops: dense peak, FLOP/s.
        bandwidth: memory bandwidth, bytes/s.
        mfu: fraction of the peak reached (1.0 = ideal).
    """
    compute = forward_flops_per_token(n_params) * positive_int(prompt_tokens, "prompt_tokens") / (
        positive(peak_flops, "peak_flops") * fraction(mfu, "mfu"))
    memory = weights_bytes(n_params, bytes_per_param) / positive(bandwidth, "bandwidth")
    return max(compute, memory)


def ttft_s(queue_s: float, prefill_s: float) -> float:
    """Time to first token, seconds: waiting in the queue + prefill (the first token comes out of prefill)."""
    return non_negative(queue_s, "queue_s") + positive(prefill_s, "prefill_s")


def request_latency_s(ttft: float, tpot: float, output_tokens: int) -> float:
    """End-to-end latency of one request, seconds: TTFT + (output_tokens - 1) x TPOT."""
    return positive(ttft, "ttft") + (positive_int(output_tokens, "output_tokens") - 1) * non_negative(tpot, "tpot")


def goodput(ttfts_s: list[float], output_tokens: list[int], duration_s: float, ttft_slo_s: float) -> dict[str, float]:
    """Throughput and goodput of a batch of finished requests, tokens/s.

    Args:
        ttfts_s: TTFT of each request, seconds.
        output_tokens: tokens generated by each request.
        duration_s: wall-clock window the requests finished in, seconds.
        ttft_slo_s: the service-level objective on TTFT, seconds.

    Returns:
        dict with ``throughput`` (all tokens / duration), ``goodput`` (tokens of requests that met
        the SLO / duration) and ``slo_fraction`` (share of requests meeting it).
    """
    if len(ttfts_s) != len(output_tokens) or not ttfts_s:
        raise ValueError("ttfts_s and output_tokens must be non-empty and of equal length")
    d = positive(duration_s, "duration_s")
    slo = positive(ttft_slo_s, "ttft_slo_s")
    toks = [positive_int(t, "output_tokens") for t in output_tokens]
    ok = [non_negative(t, "ttfts_s") <= slo for t in ttfts_s]
    good = sum(t for t, k in zip(toks, ok) if k)
    return {"throughput": sum(toks) / d, "goodput": good / d, "slo_fraction": sum(ok) / len(ok)}


def devices_needed(bytes_needed: float, device_memory: float, usable_fraction: float = 1.0) -> int:
    """Smallest number of devices whose memory holds ``bytes_needed`` (perfect sharding), count.

    Args:
        bytes_needed: total memory the job needs, bytes.
        device_memory: memory of one device, bytes.
        usable_fraction: share of each device's memory the job may use (e.g. 0.9).
    """
    import math

    per = positive(device_memory, "device_memory") * fraction(usable_fraction, "usable_fraction")
    return max(1, math.ceil(positive(bytes_needed, "bytes_needed") / per - 1e-12))
