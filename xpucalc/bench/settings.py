"""Framework settings held for the length of a measurement and restored after it.

* :func:`torch_threads` -- PyTorch's intra-op CPU threads;
* :func:`fp32_matmul_precision` -- FP32 matrix multiplies in IEEE FP32 or in TF32, and the record of
  what was in force (the runs store it beside their numbers);
* :func:`persistent_cache_disabled` -- JAX's persistent compilation cache off.

Each is a context manager that takes the framework module as an argument (so tests can pass a fake)
and restores the caller's setting on exit, also after an error.
"""
from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

#: CPU threads a measurement uses unless told otherwise (one: see the measurements page on a busy CPU).
DEFAULT_CPU_THREADS = 1

#: FP32 matmul mode per precision: (``fp32_precision`` of PyTorch >= 2.9, ``set_float32_matmul_precision`` before).
_FP32_MODES: dict[str, tuple[str, str]] = {"fp32": ("ieee", "highest"), "tf32": ("tf32", "high")}


@contextlib.contextmanager
def torch_threads(torch: Any, threads: int | None) -> Iterator[int]:
    """Inside: ``torch.set_num_threads(threads)`` (None: leave as is); restored on exit. Yields the count in force."""
    before = torch.get_num_threads()
    try:
        if threads is not None:
            torch.set_num_threads(threads)
        yield torch.get_num_threads()
    finally:
        torch.set_num_threads(before)


@contextlib.contextmanager
def fp32_matmul_precision(torch: Any, precision: str) -> Iterator[tuple[tuple[str, str], ...]]:
    """Inside: FP32 matmuls in IEEE FP32 (``"fp32"``: no TF32) or in TF32 (``"tf32"``); restored on exit.

    Any other precision (``"bf16"``, ``"fp16"``, ...) leaves the setting alone. Uses the current API,
    ``torch.backends.cuda.matmul.fp32_precision`` (PyTorch >= 2.9), and falls back to
    ``torch.set_float32_matmul_precision("highest" / "high")`` on older versions; it never reads or
    writes the legacy ``allow_tf32`` flag, so a caller who used ``set_float32_matmul_precision`` is
    left in a consistent state. Yields the settings in force, for the record (incl. the BF16
    reduced-precision-reduction flag, which is read, not changed).
    """
    matmul = torch.backends.cuda.matmul
    new_api = hasattr(matmul, "fp32_precision")
    key = "cuda.matmul.fp32_precision" if new_api else "float32_matmul_precision"

    def current() -> str:
        return matmul.fp32_precision if new_api else torch.get_float32_matmul_precision()

    def record() -> tuple[tuple[str, str], ...]:
        bf16_rr = getattr(matmul, "allow_bf16_reduced_precision_reduction", None)
        return ((key, str(current())), ("cuda.matmul.allow_bf16_reduced_precision_reduction", str(bf16_rr)))

    mode = _FP32_MODES.get(precision)
    if mode is None:
        yield record()
        return
    before = current()
    try:
        if new_api:
            matmul.fp32_precision = mode[0]
        else:
            torch.set_float32_matmul_precision(mode[1])
        yield record()
    finally:
        if new_api:
            matmul.fp32_precision = before
        else:
            torch.set_float32_matmul_precision(before)


@contextlib.contextmanager
def persistent_cache_disabled(jax: Any) -> Iterator[tuple[tuple[str, str], ...]]:
    """Inside: JAX's persistent compilation cache off; restored on exit. Yields the settings found before."""
    cfg = jax.config
    enabled = getattr(cfg, "jax_enable_compilation_cache", None)
    cache_dir = getattr(cfg, "jax_compilation_cache_dir", None)
    found = (("jax_enable_compilation_cache", str(enabled)), ("jax_compilation_cache_dir", str(cache_dir)))
    try:
        if enabled is not None:
            cfg.update("jax_enable_compilation_cache", False)
        yield found
    finally:
        if enabled is not None:
            cfg.update("jax_enable_compilation_cache", enabled)


__all__ = ["DEFAULT_CPU_THREADS", "fp32_matmul_precision", "persistent_cache_disabled", "torch_threads"]
