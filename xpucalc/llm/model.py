"""A decoder-only transformer described by its shapes: parameter counts, KV cache and FLOPs come from them.

Covers the Llama / Mistral / Mixtral family as Hugging Face ``transformers`` builds it:
token embedding, ``num_hidden_layers`` blocks of (RMSNorm, attention with grouped-query
K/V heads, RMSNorm, SwiGLU MLP or a mixture of SwiGLU experts with a linear router),
a final RMSNorm and an output head (shared with the embedding when
``tie_word_embeddings``). Counts are exact for that structure; FLOPs follow the
2N / 6N convention plus the causal attention term.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from .._check import check_bool, non_negative, positive, positive_int

#: Config keys that name a model family whose structure :class:`Model` reproduces.
SUPPORTED_MODEL_TYPES = ("llama", "mistral", "mixtral")


def _int_key(config: Mapping[str, Any], key: str) -> int:
    if key not in config:
        raise ValueError(f"config is missing {key!r}; a Llama/Mistral/Mixtral config.json has it")
    return positive_int(config[key], key)


def _optional_int_key(config: Mapping[str, Any], key: str, default: int) -> int:
    """``config[key]`` as a whole number >= 1; ``default`` only when the key is absent or null.

    0 is refused rather than read as "missing": ``num_key_value_heads: 0`` is a broken config, not MHA.
    """
    value = config.get(key)
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != int(value) or value < 1:
        raise ValueError(f"config[{key!r}] must be a whole number >= 1 (or absent for the default {default}), "
                         f"got {value!r}; fix or remove it in config.json")
    return int(value)


def embedding_bytes_for(weight_bytes: float, embedding_bytes: float | None = None) -> float:
    """Bytes per embedding/head parameter: ``embedding_bytes`` if given, else 16-bit under quantized blocks.

    None means ``max(weight_bytes, 2)``: weight quantizers (bitsandbytes, GPTQ, AWQ, FP8 exports) keep the
    embedding and the output head in 16-bit, and an FP32 model keeps them in FP32.
    """
    if embedding_bytes is not None:
        return positive(embedding_bytes, "embedding_bytes")
    return max(positive(weight_bytes, "weight_bytes"), 2.0)


@dataclass(frozen=True)
class Model:
    """Shapes of a Llama-style decoder (all counts, no units).

    Args:
        name: display name.
        vocab_size: tokens in the vocabulary V.
        hidden_size: model width d.
        intermediate_size: SwiGLU inner width (per expert for MoE).
        num_layers: transformer blocks L.
        num_heads: query heads H.
        num_kv_heads: key/value heads (GQA; equals ``num_heads`` for multi-head attention).
        head_dim: width of one head (``hidden_size // num_heads`` when the config omits it).
        tie_word_embeddings: the output head reuses the embedding matrix.
        num_experts: experts per MoE layer (1 = dense MLP).
        experts_per_token: experts each token is routed to (k of top-k).
        attention_bias: q/k/v/o projections carry biases (Llama ``attention_bias``).
        mlp_bias: gate/up/down projections carry biases (Llama ``mlp_bias``).
        source: where the configuration was taken from (URL), or None.
    """

    name: str
    vocab_size: int
    hidden_size: int
    intermediate_size: int
    num_layers: int
    num_heads: int
    num_kv_heads: int
    head_dim: int
    tie_word_embeddings: bool = False
    num_experts: int = 1
    experts_per_token: int = 1
    attention_bias: bool = False
    mlp_bias: bool = False
    source: str | None = None

    def __post_init__(self) -> None:
        for f in ("vocab_size", "hidden_size", "intermediate_size", "num_layers", "num_heads", "num_kv_heads",
                  "head_dim", "num_experts", "experts_per_token"):
            object.__setattr__(self, f, positive_int(getattr(self, f), f))
        if self.num_heads % self.num_kv_heads:
            raise ValueError(f"num_heads ({self.num_heads}) must be a multiple of num_kv_heads ({self.num_kv_heads})")
        if self.experts_per_token > self.num_experts:
            raise ValueError(f"experts_per_token ({self.experts_per_token}) cannot exceed num_experts "
                             f"({self.num_experts})")
        for f in ("tie_word_embeddings", "attention_bias", "mlp_bias"):
            if not isinstance(getattr(self, f), bool):
                raise ValueError(f"{f} must be True or False, got {getattr(self, f)!r}")

    # --- construction ----------------------------------------------------------------
    @classmethod
    def from_hf_config(cls, config: Mapping[str, Any], name: str | None = None,
                       source: str | None = None) -> "Model":
        """Build from a Hugging Face ``config.json`` dict (Llama, Mistral or Mixtral keys).

        Reads ``vocab_size``, ``hidden_size``, ``intermediate_size``, ``num_hidden_layers``,
        ``num_attention_heads``, ``num_key_value_heads`` (default: the head count),
        ``head_dim`` (default: hidden / heads), ``tie_word_embeddings`` (default False),
        ``num_local_experts`` and ``num_experts_per_tok`` (MoE), ``attention_bias`` and
        ``mlp_bias`` (Llama only; Mistral and Mixtral have no biases).
        """
        if not isinstance(config, Mapping):
            raise ValueError(f"config must be a dict parsed from config.json, got {type(config).__name__}")
        mtype = config.get("model_type", "llama")
        if mtype not in SUPPORTED_MODEL_TYPES:
            raise ValueError(f"model_type {mtype!r} is not supported; supported: {', '.join(SUPPORTED_MODEL_TYPES)}")
        heads = _int_key(config, "num_attention_heads")
        hidden = _int_key(config, "hidden_size")
        kv = _optional_int_key(config, "num_key_value_heads", heads)
        hd = _optional_int_key(config, "head_dim", hidden // heads)
        experts = _optional_int_key(config, "num_local_experts", 1)
        k = _optional_int_key(config, "num_experts_per_tok", 1) if experts > 1 else 1
        biased = mtype == "llama"
        return cls(
            name=name or config.get("_name_or_path") or mtype,
            vocab_size=_int_key(config, "vocab_size"), hidden_size=hidden,
            intermediate_size=_int_key(config, "intermediate_size"),
            num_layers=_int_key(config, "num_hidden_layers"), num_heads=heads, num_kv_heads=kv, head_dim=hd,
            tie_word_embeddings=check_bool(config.get("tie_word_embeddings", False), "tie_word_embeddings"),
            num_experts=experts, experts_per_token=k,
            attention_bias=biased and check_bool(config.get("attention_bias", False), "attention_bias"),
            mlp_bias=biased and check_bool(config.get("mlp_bias", False), "mlp_bias"),
            source=source)

    # --- parameter counts -------------------------------------------------------------
    @property
    def is_moe(self) -> bool:
        """True for a mixture-of-experts model (more than one expert per layer)."""
        return self.num_experts > 1

    @property
    def q_dim(self) -> int:
        """Width of all query heads together, H x head_dim."""
        return self.num_heads * self.head_dim

    @property
    def kv_dim(self) -> int:
        """Width of all K (or V) heads together, kv_heads x head_dim."""
        return self.num_kv_heads * self.head_dim

    @property
    def embedding_params(self) -> int:
        """Input embedding V x d."""
        return self.vocab_size * self.hidden_size

    @property
    def head_params(self) -> int:
        """Output head V x d, 0 when tied to the embedding."""
        return 0 if self.tie_word_embeddings else self.vocab_size * self.hidden_size

    @property
    def n_embedding_head_params(self) -> int:
        """Input embedding plus the output head (one matrix when tied): what weight quantizers keep in 16-bit."""
        return self.embedding_params + self.head_params

    @property
    def attention_params_per_layer(self) -> int:
        """q, k, v, o projections (+ biases): d(q + 2kv) + q d."""
        d = self.hidden_size
        w = d * (self.q_dim + 2 * self.kv_dim) + self.q_dim * d
        b = (self.q_dim + 2 * self.kv_dim + d) if self.attention_bias else 0
        return w + b

    @property
    def expert_params(self) -> int:
        """One SwiGLU MLP (gate, up, down): 3 d I (+ biases 2I + d)."""
        d, i = self.hidden_size, self.intermediate_size
        return 3 * d * i + ((2 * i + d) if self.mlp_bias else 0)

    @property
    def router_params_per_layer(self) -> int:
        """MoE router d x E (no bias); 0 for a dense model."""
        return self.hidden_size * self.num_experts if self.is_moe else 0

    @property
    def norm_params_per_layer(self) -> int:
        """Two RMSNorm weight vectors per block, 2d."""
        return 2 * self.hidden_size

    @property
    def layer_params(self) -> int:
        """All parameters of one block."""
        return (self.attention_params_per_layer + self.num_experts * self.expert_params
                + self.router_params_per_layer + self.norm_params_per_layer)

    @property
    def n_params(self) -> int:
        """All parameters (exact for the transformers implementation)."""
        return self.embedding_params + self.head_params + self.hidden_size + self.num_layers * self.layer_params

    @property
    def n_active_params(self) -> int:
        """Parameters one token touches: everything but the experts it is not routed to."""
        idle = (self.num_experts - self.experts_per_token) * self.expert_params * self.num_layers
        return self.n_params - idle

    @property
    def n_expert_params(self) -> int:
        """Parameters of all experts of all layers (0 for a dense model)."""
        return self.num_experts * self.expert_params * self.num_layers if self.is_moe else 0

    @property
    def n_shared_params(self) -> int:
        """Parameters every token reads (all but the experts): attention, norms, router, embeddings, head."""
        return self.n_params - self.n_expert_params

    # --- memory -----------------------------------------------------------------------
    def weights_bytes(self, weight_bytes: float = 2.0, embedding_bytes: float | None = None) -> float:
        """Bytes of all weights: the embedding and head at ``embedding_bytes``, the rest at ``weight_bytes``.

        Args:
            weight_bytes: bytes per weight of the blocks (2 BF16, 1 FP8, 0.5 INT4; add the group
                metadata, e.g. 0.5 + 2.5 / 128 for AWQ, to count it).
            embedding_bytes: bytes per parameter of the embedding and the output head; None keeps them
                in 16-bit when the blocks are quantized (``max(weight_bytes, 2)``), as bitsandbytes,
                GPTQ, AWQ and FP8 exports do (see ``xpucalc.llm.quant``).
        """
        wb = positive(weight_bytes, "weight_bytes")
        eh = self.n_embedding_head_params
        return (self.n_params - eh) * wb + eh * embedding_bytes_for(wb, embedding_bytes)

    def embedding_head_read_bytes(self, tokens: int, embedding_bytes: float = 2.0) -> float:
        """Embedding and head bytes one forward step over ``tokens`` tokens reads, bytes.

        The head multiplies every token by the whole V x d matrix; the embedding is a lookup that
        reads one row per token (at most V rows). With tied embeddings the one matrix is read whole
        by the head, and the lookup adds nothing new.
        """
        t = positive_int(tokens, "tokens")
        eb = positive(embedding_bytes, "embedding_bytes")
        head = self.vocab_size * self.hidden_size * eb
        if self.tie_word_embeddings:
            return head
        return head + min(t, self.vocab_size) * self.hidden_size * eb

    def kv_bytes_per_token(self, kv_dtype_bytes: float = 2.0) -> float:
        """KV cache of one token, bytes: 2 (K and V) x layers x kv_heads x head_dim x bytes."""
        return 2.0 * self.num_layers * self.kv_dim * positive(kv_dtype_bytes, "kv_dtype_bytes")

    def expected_experts_touched(self, tokens: int) -> float:
        """Experts per layer that at least one of ``tokens`` tokens is routed to (expected value).

        With uniform, independent top-k routing a given expert is missed by one token
        with probability 1 - k/E, so E (1 - (1 - k/E)^B) experts are touched. Equals k
        for one token and approaches E for large batches. A dense model returns 1.
        """
        b = positive_int(tokens, "tokens")
        if not self.is_moe:
            return 1.0
        e, k = self.num_experts, self.experts_per_token
        return e * (1.0 - (1.0 - k / e) ** b)

    def weights_read_per_step(self, tokens: int, weight_bytes: float = 2.0,
                              embedding_bytes: float | None = None) -> float:
        """Weight bytes one forward step over ``tokens`` tokens must read (decode: tokens = batch).

        The blocks' shared parameters once, the expected distinct experts per layer, the whole output
        head, and one embedding row per token (not the whole input embedding: a lookup reads only its
        rows). ``embedding_bytes`` as in :meth:`weights_bytes`.
        """
        per = positive(weight_bytes, "weight_bytes")
        b = positive_int(tokens, "tokens")
        eb = embedding_bytes_for(per, embedding_bytes)
        body = (self.n_shared_params - self.n_embedding_head_params) * per
        experts = self.expected_experts_touched(b) * self.expert_params * self.num_layers if self.is_moe else 0.0
        return body + experts * per + self.embedding_head_read_bytes(b, eb)

    # --- FLOPs ------------------------------------------------------------------------
    def attention_flops_per_token(self, context: float, training: bool = False) -> float:
        """Causal attention (QK^T and AV) FLOP per token, averaged over a sequence of ``context`` tokens.

        Token i attends to i earlier positions: QK^T and AV each cost 2 x i x (H x head_dim)
        per layer, so the average over the sequence is 2 L (H head_dim) s forward
        (the full, non-causal figure is twice that). Training multiplies by 3; the default is the
        forward pass, as in ``xpucalc.llm.attention_flops_per_token``.
        """
        s = non_negative(context, "context")
        fwd = 2.0 * self.num_layers * self.q_dim * s
        return 3.0 * fwd if check_bool(training, "training") else fwd

    def flops_per_token(self, context: float, training: bool = False) -> float:
        """FLOP per token of a causal pass over ``context`` tokens: 2 N_active (+ attention); x3 for training.

        N_active includes the embedding lookup, the usual 2N/6N convention.
        """
        dense = (6.0 if check_bool(training, "training") else 2.0) * self.n_active_params
        return dense + self.attention_flops_per_token(context, training)

    def decode_flops_per_token(self, position: float) -> float:
        """FLOP to generate one token that attends to ``position`` cached tokens: 2 N_active + 4 L (H hd) pos."""
        return 2.0 * self.n_active_params + 4.0 * self.num_layers * self.q_dim * non_negative(position, "position")

    def valid_tp(self) -> list[int]:
        """Tensor-parallel degrees that divide both the query and the KV head counts."""
        return [t for t in range(1, self.num_heads + 1)
                if self.num_heads % t == 0 and self.num_kv_heads % t == 0]

    def to_hf_config(self) -> dict[str, Any]:
        """A config dict ``transformers`` accepts for this shape (LlamaConfig / MixtralConfig keys)."""
        cfg: dict[str, Any] = {
            "model_type": "mixtral" if self.is_moe else "llama", "vocab_size": self.vocab_size,
            "hidden_size": self.hidden_size, "intermediate_size": self.intermediate_size,
            "num_hidden_layers": self.num_layers, "num_attention_heads": self.num_heads,
            "num_key_value_heads": self.num_kv_heads, "head_dim": self.head_dim,
            "tie_word_embeddings": self.tie_word_embeddings}
        if self.is_moe:
            cfg.update(num_local_experts=self.num_experts, num_experts_per_tok=self.experts_per_token)
        else:
            cfg.update(attention_bias=self.attention_bias, mlp_bias=self.mlp_bias)
        return cfg


__all__ = ["Model", "SUPPORTED_MODEL_TYPES", "embedding_bytes_for"]
