"""Training estimates from a :class:`Model`: FLOPs with the causal attention term, time, implied MFU.

The scalar rules (``6 N T``) live in ``xpucalc.llm.compute`` (re-exported as ``xpucalc.llm``); here N is the model's
*active* parameter count (MoE: the routed experts only) and the attention-score FLOPs
of a causal sequence of ``seq_len`` tokens are added. Published training budgets
(``xpucalc/catalog/data/llm_training_runs.json``) can be set against these estimates with
:func:`published_runs`.
"""
from __future__ import annotations

from typing import Any

from ..catalog import devices
from .._check import fraction, positive, positive_int
from ..catalog.store import load_json
from ..render.table import Table
from ..units import fmt_num
from . import footprint, models
from .model import Model


def train_flops(model: Model, tokens: float, seq_len: int) -> float:
    """Training FLOP for ``tokens`` tokens in sequences of ``seq_len``: T x (6 N_active + causal attention)."""
    return positive(tokens, "tokens") * model.flops_per_token(positive_int(seq_len, "seq_len"), training=True)


def train_time_s(model: Model, tokens: float, seq_len: int, n_devices: int, peak_flops: float, mfu: float) -> float:
    """Wall-clock training time, seconds: train_flops / (n_devices x peak_flops x mfu).

    Args:
        model: the architecture.
        tokens: training tokens (count).
        seq_len: tokens per training sequence.
        n_devices: accelerators (>= 1).
        peak_flops: dense peak per device, FLOP/s.
        mfu: model FLOPs utilisation, a fraction in (0, 1].
    """
    return train_flops(model, tokens, seq_len) / (positive_int(n_devices, "n_devices")
                                                  * positive(peak_flops, "peak_flops") * fraction(mfu, "mfu"))


def implied_mfu(model: Model, tokens: float, seq_len: int, device_hours: float, peak_flops: float,
                attention: bool = True) -> float:
    """MFU implied by a reported budget: FLOP / (device_hours x 3600 x peak), a fraction.

    Raises ValueError when the result exceeds 1: the inputs then claim more work than
    the devices' peak allows (wrong peak, wrong hours or wrong token count).
    """
    flops = train_flops(model, tokens, seq_len) if attention else 6.0 * model.n_active_params * positive(tokens, "tokens")
    m = flops / (positive(device_hours, "device_hours") * 3600.0 * positive(peak_flops, "peak_flops"))
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
    FlashAttention); the adapter is rank ``rank`` on every linear layer of every block.
    """
    if method not in ("full", "lora", "qlora"):
        raise ValueError(f"method must be 'full', 'lora' or 'qlora', got {method!r}")
    light = method != "full"
    act = footprint.activation_bytes(model.num_layers, model.hidden_size, model.num_heads, seq_len, batch,
                                    recompute=light, flash_attention=light)
    adapter = footprint.lora_adapter_params(model.num_layers, lora_shapes(model), rank) if light else None
    return footprint.finetune_memory_breakdown(method, model.n_params, act, adapter)


def runs() -> list[dict[str, Any]]:
    """The published training runs stored in ``llm_training_runs.json``."""
    return list(load_json("llm_training_runs.json")["runs"])


def run(key: str) -> dict[str, Any]:
    """One stored run by its key (e.g. ``"llama-2-70b"``); KeyError lists the known keys."""
    found = [r for r in runs() if r["key"] == key]
    if not found:
        raise KeyError(f"unknown training run {key!r}; known: {', '.join(r['key'] for r in runs())}")
    return found[0]


def run_source(source_id: str) -> dict[str, Any]:
    """Title, URL and date checked of a source id of the training-run file."""
    src = load_json("llm_training_runs.json")["sources"]
    if source_id not in src:
        raise KeyError(f"unknown source id {source_id!r}; known: {', '.join(src)}")
    return src[source_id]


def run_mfu(run: dict[str, Any], attention: bool = True) -> float:
    """Implied MFU of one stored run, using the catalog's dense BF16 peak of its device."""
    m = models.get(run["model"])
    peak = devices.peak(run["device"], "bf16", sparse=False)["value"]
    return implied_mfu(m, run["tokens"], run["seq_len"], run["device_hours"], peak, attention)


def _short(title: str) -> str:
    """The name part of a source title: up to the first colon or parenthesis."""
    return title.split(" (")[0].split(":")[0].strip()


def published_runs(caption: str = "") -> Table:
    """Table: each published run, its budget, the implied MFU (6N only and with attention) and the reported MFU."""
    t = Table(["학습", "장치·GPU 시간", "토큰", "함의 MFU (6N만)", "함의 MFU (+어텐션)", "논문 보고 MFU", "출처"],
              caption=caption)
    for r in runs():
        rep = r.get("reported_mfu")
        t.add(r["name"], f"{devices.entry(r['device'])['name']} {fmt_num(r['device_hours'] / 1e6, 2)}M 시간",
              f"{fmt_num(r['tokens'] / 1e12, 1)}T", f"{fmt_num(100 * run_mfu(r, False), 1)} %",
              f"{fmt_num(100 * run_mfu(r, True), 1)} %",
              f"{fmt_num(100 * rep[0], 0)}–{fmt_num(100 * rep[1], 0)} %" if rep else "—",
              "; ".join(dict.fromkeys(_short(run_source(k)["title"])
                                       for k in (r["source"], r.get("tokens_source"), r.get("mfu_source")) if k)))
    return t


__all__ = ["finetune_memory", "lora_shapes", "implied_mfu", "published_runs", "run", "run_mfu", "run_source", "runs", "train_flops", "train_time_s"]
