"""The grid's vocabulary: execution paths, precisions, element sizes, display names."""
from __future__ import annotations

from collections.abc import Sequence

#: Execution paths: the framework's default (eager) and its compiler (torch.compile / jax.jit).
PATHS: tuple[str, ...] = ("eager", "compiled")
#: Precisions: FP32 (TF32 off: matmul precision "ieee" / Precision.HIGHEST) and BF16.
PRECISIONS: tuple[str, ...] = ("fp32", "bf16")
#: Bytes per element of each precision.
DTYPE_BYTES: dict[str, int] = {"fp32": 4, "bf16": 2}

#: Display names of the paths per framework.
PATH_LABELS: dict[tuple[str, str], str] = {
    ("torch", "eager"): "PyTorch Eager",
    ("torch", "compiled"): "torch.compile",
    ("jax", "eager"): "JAX Eager",
    ("jax", "compiled"): "jax.jit (XLA)",
}


def check_choice(value: object, name: str, choices: Sequence[str]) -> str:
    """``value`` if it is one of ``choices``, else ValueError naming ``name`` and the choices."""
    if value not in choices:
        raise ValueError(f"{name} must be one of {', '.join(map(repr, choices))}, got {value!r}")
    return str(value)


__all__ = ["DTYPE_BYTES", "PATHS", "PATH_LABELS", "PRECISIONS", "check_choice"]
