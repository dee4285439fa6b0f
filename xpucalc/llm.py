"""Back-of-the-envelope LLM hardware arithmetic, in SI units.

Conventions: a multiply-add is 2 FLOP; ``n_params`` is a count (70e9 for a 70B
model); sizes are bytes, rates FLOP/s or bytes/s, times seconds.
"""
from __future__ import annotations

from ._check import fraction, non_negative, positive, positive_int

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
    sequence is much shorter than six times the model width, not when s < d/12.
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
    """Rule of thumb for full fine-tuning with AdamW in BF16 mixed precision: ~20 bytes per parameter."""
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
    """
    return train_flops_per_token(n_params) * positive(tokens_per_s, "tokens_per_s") / (
        positive_int(n_devices, "n_devices") * positive(peak_flops, "peak_flops"))


def mfu_from_device_hours(n_params: float, tokens: float, device_hours: float, peak_flops: float) -> float:
    """MFU implied by a reported budget: 6NT / (device_hours x 3600 x peak_flops), a fraction."""
    return train_flops(n_params, tokens) / (positive(device_hours, "device_hours") * 3600.0
                                            * positive(peak_flops, "peak_flops"))


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
