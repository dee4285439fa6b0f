"""FLOP counts of the 2N / 6N rules, training time and model FLOPs utilisation, from scalars (SI units).

Conventions: a multiply-add is 2 FLOP; ``n_params`` is a count (70e9 for a 70B model);
rates are FLOP/s, times seconds. The architecture-aware versions live in
``xpucalc.llm.model`` and ``xpucalc.llm.training``.
"""
from __future__ import annotations

from .._check import check_bool, device_figure, fraction, positive, positive_int

#: Chinchilla's compute-optimal ratio of training tokens to parameters.
CHINCHILLA_TOKENS_PER_PARAM = 20.0


def forward_flops_per_token(n_params: float) -> float:
    """Forward (inference) FLOP per token, ignoring attention: 2N."""
    return 2.0 * positive(n_params, "n_params")


def train_flops_per_token(n_params: float) -> float:
    """Training FLOP per token, forward 2N + backward 4N = 6N (attention ignored)."""
    return 6.0 * positive(n_params, "n_params")


def lora_train_flops_per_token(n_params: float, trainable_params: float, recompute: bool = False) -> float:
    """Training FLOP per token of LoRA / QLoRA: frozen weights get no weight gradient.

    Forward 2N (base) + 2T (adapters); backward: activation gradients through every layer, 2N + 2T,
    and weight gradients only for the adapters, 2T. Full 6N training adds a 2N weight-gradient
    term that frozen weights skip, so LoRA is about 4N + 6T, two thirds of 6N. Full activation
    recomputation (gradient checkpointing) runs the forward again: + 2N + 2T, back to about 6N.
    QLoRA's dequantization of the 4-bit weights is extra work that is not counted in FLOP.

    Args:
        n_params: parameters of the frozen base model N (count).
        trainable_params: adapter parameters T (count), see ``xpucalc.llm.lora_adapter_params``.
        recompute: full activation recomputation.
    """
    n = positive(n_params, "n_params")
    t = positive(trainable_params, "trainable_params")
    if t >= n:
        raise ValueError(f"trainable_params ({t:g}) must be smaller than n_params ({n:g}); for full training "
                         "use train_flops_per_token")
    flops = 4.0 * n + 6.0 * t
    return flops + (2.0 * n + 2.0 * t if check_bool(recompute, "recompute") else 0.0)


def train_flops(n_params: float, tokens: float) -> float:
    """Total training FLOP, 6 N T."""
    return train_flops_per_token(n_params) * positive(tokens, "tokens")


def inference_flops(n_params: float, tokens: float) -> float:
    """Total inference FLOP for ``tokens`` processed tokens, 2 N T."""
    return forward_flops_per_token(n_params) * positive(tokens, "tokens")


def attention_flops_per_token(layers: int, d_model: float, seq_len: float, training: bool = False) -> float:
    """The attention-score term the 2N/6N rules leave out, FLOP per token.

    Forward: QK^T and AV each cost 2 * seq_len * d_model FLOP per layer per token,
    so 4 L d s; training triples it to 12 L d s. (Per sequence of length s the
    forward term is 4 L d s^2, the cheat-sheet form.) The default is the forward
    pass, as in ``Model.attention_flops_per_token``; pass ``training=True`` for 12 L d s.
    """
    base = 4.0 * positive_int(layers, "layers") * positive(d_model, "d_model") * positive(seq_len, "seq_len")
    return 3.0 * base if check_bool(training, "training") else base


def attention_ratio(n_params: float, layers: int, d_model: float, seq_len: float) -> float:
    """Attention term over the 6N term for training: 12 L d s / 6N.

    With N ~ 12 L d^2 this is about s / (6 d): the term is negligible when the
    sequence is much shorter than six times the model width (s << 6d).
    """
    return attention_flops_per_token(layers, d_model, seq_len, training=True) / train_flops_per_token(n_params)


def train_time_s(n_params: float, tokens: float, n_devices: int, peak_flops: float, mfu: float) -> float:
    """Wall-clock training time, seconds: 6NT / (n_devices x peak_flops x mfu).

    Args:
        n_params: parameters (count).
        tokens: training tokens (count).
        n_devices: accelerators working together (>= 1).
        peak_flops: dense peak per device for the training precision, FLOP/s.
        mfu: model FLOPs utilisation as a fraction in (0, 1] (0.4 for 40 %).
    """
    return train_flops(n_params, tokens) / (positive_int(n_devices, "n_devices") * device_figure(peak_flops, "peak_flops", "FLOP/s")
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
        positive_int(n_devices, "n_devices") * device_figure(peak_flops, "peak_flops", "FLOP/s"))
    return _at_most_one(m, "tokens_per_s")


def _at_most_one(m: float, culprit: str) -> float:
    if m > 1.0:
        raise ValueError(f"MFU would be {m:.3f} (> 1, faster than the peak): check {culprit}, n_devices and "
                         "peak_flops (dense, per device)")
    return m


def mfu_from_device_hours(n_params: float, tokens: float, device_hours: float, peak_flops: float) -> float:
    """MFU implied by a reported budget: 6NT / (device_hours x 3600 x peak_flops), a fraction (ValueError if > 1)."""
    return _at_most_one(train_flops(n_params, tokens) / (positive(device_hours, "device_hours") * 3600.0
                                                         * device_figure(peak_flops, "peak_flops", "FLOP/s")), "device_hours")


__all__ = ["CHINCHILLA_TOKENS_PER_PARAM", "attention_flops_per_token", "attention_ratio", "chinchilla_tokens",
           "forward_flops_per_token", "inference_flops", "lora_train_flops_per_token", "mfu", "mfu_from_device_hours", "train_flops",
           "train_flops_per_token", "train_time_s"]
