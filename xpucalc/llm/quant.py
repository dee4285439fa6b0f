"""Weight-quantization methods as their libraries apply them: bits per weight, group metadata, what stays in 16-bit.

The data live in ``xpucalc/catalog/data/models.json`` (section ``quantization``, its sources under
``sources``). Every method of the catalog keeps the token embedding, the output head
(``lm_head``) and the norms in 16-bit: bitsandbytes replaces only ``nn.Linear`` modules and skips
``lm_head``; GPTQ and AWQ quantize the linear layers inside the decoder blocks; NVIDIA ModelOpt's FP8
export lists ``lm_head`` and ``embed_tokens`` as excluded. :func:`model_bytes` sizes a
:class:`~xpucalc.llm.model.Model` that way (norms are under 0.01 % of a Llama model and are counted
with the quantized weights).
"""
from __future__ import annotations

from dataclasses import dataclass

from ..catalog.store import Catalog
from .model import Model

#: The quantization methods: ``models.json`` section ``quantization``.
CATALOG = Catalog("models.json", "quantization", "quantization method")

#: Bytes per parameter of what a quantizer keeps in 16-bit (FP16/BF16).
KEPT_BYTES = 2.0


@dataclass(frozen=True)
class QuantMethod:
    """One weight-quantization method (documented figures, 문서 확인).

    Attributes:
        key: catalog key (``"awq"``).
        name: display name.
        weight_bits: bits per quantized weight (4.127 for NF4 with double quantization: its block constants included).
        group_size: weights sharing one group's metadata, or None when it is folded into ``weight_bits``.
        bytes_per_group: metadata per group, bytes (an FP16 scale and a 4-bit zero point: 2.5).
        kept_16bit: modules the method leaves in 16-bit.
        activations: the activation precision, e.g. ``"16-bit (W4A16)"``.
        sources: source ids in the file's ``sources``.
    """

    key: str
    name: str
    weight_bits: float
    group_size: int | None
    bytes_per_group: float
    kept_16bit: tuple[str, ...]
    activations: str
    sources: tuple[str, ...]

    @property
    def bytes_per_weight(self) -> float:
        """Bytes per quantized weight with its share of the group metadata: bits / 8 + bytes_per_group / group_size."""
        meta = self.bytes_per_group / self.group_size if self.group_size else 0.0
        return self.weight_bits / 8.0 + meta


def keys() -> list[str]:
    """Catalog keys of the methods: ``bnb-nf4``, ``bnb-int8``, ``gptq``, ``awq``, ``fp8``."""
    return CATALOG.keys()


def get(key: str) -> QuantMethod:
    """The method ``key``; KeyError names the known keys."""
    e = CATALOG.entry(key)
    return QuantMethod(key=key, name=e["name"], weight_bits=float(e["weight_bits"]), group_size=e["group_size"],
                       bytes_per_group=float(e["bytes_per_group"]), kept_16bit=tuple(e["kept_16bit"]),
                       activations=e["activations"], sources=tuple(e["sources"]))


def source_urls(key: str) -> list[str]:
    """URLs of the sources of method ``key`` (from the file's ``sources``)."""
    return [CATALOG.source(s).url for s in get(key).sources]


def published_size(key: str = "awq") -> float:
    """A published file size of a model quantized by ``key`` (bytes; 문서 확인), the footprint model's cross-check.

    Only ``awq`` has one: TheBloke/Llama-2-7B-Chat-AWQ, 3.89 GB. KeyError for a method without one.
    """
    e = CATALOG.entry(key)
    if "published_size" not in e:
        raise KeyError(f"quantization method {key!r} has no published_size in models.json; 'awq' has one")
    return float(e["published_size"]["value"])


def model_bytes(model: Model, method: str) -> dict[str, float]:
    """Weights of ``model`` quantized by ``method``, bytes, split into parts.

    Returns:
        dict with ``quantized`` (the linear layers of the blocks at ``weight_bits``), ``metadata`` (group
        scales and zero points), ``kept_16bit`` (embedding and head at 2 bytes; one matrix when tied) and ``total``.
    """
    if not isinstance(model, Model):
        raise ValueError(f"model must be an xpucalc.llm.Model (see xpucalc.llm.models.get), got {type(model).__name__}")
    m = get(method)
    kept = model.n_embedding_head_params
    q = model.n_params - kept
    weights = q * m.weight_bits / 8.0
    meta = q / m.group_size * m.bytes_per_group if m.group_size else 0.0
    kept_bytes = kept * KEPT_BYTES
    return {"quantized": weights, "metadata": meta, "kept_16bit": kept_bytes, "total": weights + meta + kept_bytes}


__all__ = ["CATALOG", "KEPT_BYTES", "QuantMethod", "get", "keys", "model_bytes", "published_size", "source_urls"]
