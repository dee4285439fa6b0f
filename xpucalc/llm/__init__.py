"""LLM hardware arithmetic: scalar rules, a model described by its shapes, a model catalog, serving and training.

- ``xpucalc.llm.formulas``: the scalar back-of-the-envelope rules (2N/6N, KV cache, decode bound,
  all-reduce, MFU, ...), re-exported here so ``llm.kv_cache_bytes(...)`` keeps working;
- ``xpucalc.llm.model``: ``Model``, a Llama/Mistral/Mixtral decoder built from its ``config.json``;
- ``xpucalc.llm.models``: the catalog of well-known configs (``models.get("llama-3-70b")``);
- ``xpucalc.llm.serve``: ``serve``, a layout- and memory-aware serving estimate;
- ``xpucalc.llm.training``: training time and implied MFU with the attention term.

SI units throughout: bytes, FLOP, seconds, bytes/s, FLOP/s; parameter counts are plain counts.
"""
from __future__ import annotations

from . import formulas, models, serve as _serve_module, training
from .formulas import *  # noqa: F401,F403  (the scalar rules are the package's historical API)
from .formulas import __dict__ as _formulas_dict
from .model import Model
from .serve import ServeEstimate, layouts, serve

#: The serving module (``xpucalc.llm.serve`` is the function; the module is reachable here).
serving = _serve_module

__all__ = sorted({n for n in _formulas_dict if not n.startswith("_") and callable(_formulas_dict[n])
                  and getattr(_formulas_dict[n], "__module__", "") == formulas.__name__}
                 | {"CHINCHILLA_TOKENS_PER_PARAM", "ADAMW_MIXED_BYTES_PER_PARAM", "NF4_DOUBLE_QUANT_BITS",
                    "Model", "ServeEstimate", "formulas", "layouts", "models", "serve", "serving", "training"})
