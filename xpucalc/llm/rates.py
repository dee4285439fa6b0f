"""Decode and prefill rates from scalars, their roofline intensities, and serving metrics (TTFT, latency, goodput).

``n_params`` is a count, sizes bytes, rates FLOP/s, bytes/s or tokens/s, times seconds.
The layout- and memory-aware estimate is :func:`xpucalc.llm.serve`.
"""
from __future__ import annotations

from .._check import device_figure, fraction, non_negative, positive, positive_int
from .compute import forward_flops_per_token
from .footprint import weights_bytes

def decode_tokens_per_s_bound(model_bytes: float, bandwidth: float) -> float:
    """Upper bound on single-stream decode speed, tokens/s: bandwidth / bytes read per token.

    Every generated token reads all weights once (KV cache ignored unless added to
    ``model_bytes``).

    Args:
        model_bytes: bytes read per token, bytes.
        bandwidth: memory bandwidth, bytes/s.
    """
    return device_figure(bandwidth, "bandwidth", "bytes/s") / positive(model_bytes, "model_bytes")


def compute_tokens_per_s_bound(n_params: float, peak_flops: float) -> float:
    """Upper bound on tokens/s from compute alone: peak / 2N."""
    return device_figure(peak_flops, "peak_flops", "FLOP/s") / forward_flops_per_token(n_params)


def decode_step_time_s(n_params: float, batch: int, bytes_per_param: float, peak_flops: float,
                       bandwidth: float, kv_bytes_per_seq: float = 0.0) -> float:
    """Roofline time of one decode step for ``batch`` sequences, seconds.

    The weights are read once for the whole batch, each sequence reads its own KV
    cache, and every sequence needs 2N FLOP: max(2N*batch/peak, (weights + batch*kv)/bandwidth).
    """
    b = positive_int(batch, "batch")
    compute = forward_flops_per_token(n_params) * b / device_figure(peak_flops, "peak_flops", "FLOP/s")
    traffic = weights_bytes(n_params, bytes_per_param) + b * non_negative(kv_bytes_per_seq, "kv_bytes_per_seq")
    return max(compute, traffic / device_figure(bandwidth, "bandwidth", "bytes/s"))


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
    return device_figure(peak_flops, "peak_flops", "FLOP/s") * positive(bytes_per_param, "bytes_per_param") / (
        2.0 * device_figure(bandwidth, "bandwidth", "bytes/s"))


def decode_intensity(batch: int, bytes_per_param: float, kv_bytes_per_seq_per_param: float = 0.0) -> float:
    """Arithmetic intensity of one decode step, FLOP/byte.

    ``2 N b`` FLOP over ``N x bytes_per_param + b x KV`` bytes; with the KV traffic given
    per parameter (KV bytes of one sequence / N) the model size cancels:
    ``2 b / (bytes_per_param + b x kv_bytes_per_seq_per_param)``. FP16 at batch 1: 1 FLOP/B.
    """
    b = positive_int(batch, "batch")
    return 2.0 * b / (positive(bytes_per_param, "bytes_per_param")
                      + b * non_negative(kv_bytes_per_seq_per_param, "kv_bytes_per_seq_per_param"))


def decode_intensity_limit(flops_per_token: float, kv_bytes_per_sequence: float) -> float:
    """Highest arithmetic intensity decode can reach, whatever the batch, FLOP/byte.

    A step over ``b`` sequences does ``b x flops_per_token`` FLOP and reads the weights once plus
    ``b x kv_bytes_per_sequence``; as ``b`` grows the weights' share vanishes and the intensity rises
    towards ``flops_per_token / kv_bytes_per_sequence``. When this limit is below the device's ridge
    point (peak / bandwidth), decode stays memory-bound at every batch.

    Args:
        flops_per_token: FLOP of one decode token, e.g. ``Model.decode_flops_per_token(context)``.
        kv_bytes_per_sequence: KV-cache bytes one sequence reads per step, e.g.
            ``Model.kv_bytes_per_token() x context``; must be > 0 (without a KV cache there is no limit).
    """
    return positive(flops_per_token, "flops_per_token") / positive(kv_bytes_per_sequence, "kv_bytes_per_sequence")


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
        device_figure(peak_flops, "peak_flops", "FLOP/s") * fraction(mfu, "mfu"))
    memory = weights_bytes(n_params, bytes_per_param) / device_figure(bandwidth, "bandwidth", "bytes/s")
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


__all__ = ["compute_tokens_per_s_bound", "decode_critical_batch", "decode_intensity", "decode_step_time_s",
           "decode_throughput", "decode_tokens_per_s_bound", "goodput", "prefill_intensity", "prefill_time_s",
           "request_latency_s", "ttft_s"]
