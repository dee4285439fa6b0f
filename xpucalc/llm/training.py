"""Training estimates from a :class:`Model`: FLOPs with the causal attention term, time, implied MFU.

The scalar rules (``6 N T``) live in ``xpucalc.llm.compute`` (re-exported as ``xpucalc.llm``); here N is the model's
*active* parameter count (MoE: the routed experts only) and the attention-score FLOPs
of a causal sequence of ``seq_len`` tokens are added (hence :func:`model_train_flops` and
:func:`model_train_time_s`, named apart from the scalar ``llm.train_flops`` / ``llm.train_time_s``).
Published training budgets (``xpucalc/catalog/data/llm_training_runs.json``, read through :data:`RUNS`)
can be set against these estimates with :func:`run_mfu`; ``xpucalc.render.llm_tables.published_runs``
shows them as a table.
"""
from __future__ import annotations

from typing import Any

from .._check import check_bool, device_figure, fraction, positive, positive_int
from ..catalog import devices
from ..catalog.figure import Source
from ..catalog.store import Catalog
from . import compute, footprint, models
from .model import Model

#: The published training runs (``llm_training_runs.json``): model, device, GPU-hours, tokens, sources.
RUNS = Catalog("llm_training_runs.json", "runs", "training run")


def model_train_flops(model: Model, tokens: float, seq_len: int) -> float:
    """Training FLOP for ``tokens`` tokens in sequences of ``seq_len``: T x (6 N_active + causal attention)."""
    return positive(tokens, "tokens") * model.flops_per_token(positive_int(seq_len, "seq_len"), training=True)


def model_train_time_s(model: Model, tokens: float, seq_len: int, n_devices: int, peak_flops: float,
                       mfu: float) -> float:
    """Wall-clock training time, seconds: model_train_flops / (n_devices x peak_flops x mfu).

    Args:
        model: the architecture.
        tokens: training tokens (count).
        seq_len: tokens per training sequence.
        n_devices: accelerators (>= 1).
        peak_flops: dense peak per device, FLOP/s.
        mfu: model FLOPs utilisation, a fraction in (0, 1].
    """
    return model_train_flops(model, tokens, seq_len) / (positive_int(n_devices, "n_devices")
                                                        * device_figure(peak_flops, "peak_flops", "FLOP/s") * fraction(mfu, "mfu"))


def implied_mfu(model: Model, tokens: float, seq_len: int, device_hours: float, peak_flops: float,
                attention: bool = True) -> float:
    """MFU implied by a reported budget: FLOP / (device_hours x 3600 x peak), a fraction.

    Raises ValueError when the result exceeds 1: the inputs then claim more work than
    the devices' peak allows (wrong peak, wrong hours or wrong token count).
    """
    if check_bool(attention, "attention"):
        flops = model_train_flops(model, tokens, seq_len)
    else:
        flops = compute.train_flops(model.n_active_params, tokens)
    m = flops / (positive(device_hours, "device_hours") * 3600.0 * device_figure(peak_flops, "peak_flops", "FLOP/s"))
    if m > 1.0:
        raise ValueError(f"implied MFU is {m:.3f} > 1: the work claimed exceeds peak x time; check device_hours, "
                         "peak_flops (dense, not sparse) and tokens")
    return m


def lora_shapes(model: Model) -> list[tuple[int, int]]:
    """(d_in, d_out) of every linear layer of one block that LoRA adapts (q, k, v, o, gate, up, down; per expert)."""
    d, q, kv, i = model.hidden_size, model.q_dim, model.kv_dim, model.intermediate_size
    return [(d, q), (d, kv), (d, kv), (q, d)] + [(d, i), (d, i), (i, d)] * model.num_experts


def finetune_memory(model: Model, method: str, seq_len: int = 2048, batch: int = 1, rank: int = 16) -> dict[str, float]:
    """Memory of fine-tuning ``model`` by ``method`` (``full``, ``lora``, ``qlora``), bytes per part.

    Parts as :func:`xpucalc.llm.finetune_memory_breakdown`; activations by Korthikanti et al.
    for ``seq_len`` x ``batch`` (full: stored, standard attention; LoRA/QLoRA: full recomputation with
    FlashAttention); the adapter is rank ``rank`` on every linear layer of every block. QLoRA keeps the
    embedding and the output head in 16-bit, as bitsandbytes does (``xpucalc.llm.quant.get("bnb-nf4")``).
    """
    if method not in ("full", "lora", "qlora"):
        raise ValueError(f"method must be 'full', 'lora' or 'qlora', got {method!r}")
    light = method != "full"
    act = footprint.activation_bytes(model.num_layers, model.hidden_size, model.num_heads, seq_len, batch,
                                    recompute=light, flash_attention=light)
    adapter = footprint.lora_adapter_params(model.num_layers, lora_shapes(model), rank) if light else None
    return footprint.finetune_memory_breakdown(method, model.n_params, act, adapter,
                                               kept_16bit_params=model.n_embedding_head_params)


def runs() -> list[dict[str, Any]]:
    """The published training runs stored in ``llm_training_runs.json``, in file order."""
    return RUNS.entries()


def run(key: str) -> dict[str, Any]:
    """One stored run by its key (e.g. ``"llama-2-70b"``); KeyError lists the known keys."""
    return RUNS.entry(key)


def run_source(source_id: str) -> Source:
    """Title, URL and date checked of a source id of the training-run file; KeyError lists the known ids."""
    return RUNS.source(source_id)


def run_mfu(run: dict[str, Any], attention: bool = True) -> float:
    """Implied MFU of one stored run, using the catalog's dense BF16 peak of its device."""
    m = models.get(run["model"])
    peak = devices.peak(run["device"], "bf16", sparse=False).value
    return implied_mfu(m, run["tokens"], run["seq_len"], run["device_hours"], peak, check_bool(attention, "attention"))


__all__ = ["RUNS", "finetune_memory", "implied_mfu", "lora_shapes", "model_train_flops", "model_train_time_s", "run",
           "run_mfu", "run_source", "runs"]
