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
from collections.abc import Callable, Iterator
from typing import Any

#: CPU threads a measurement uses unless told otherwise (one: see the measurements page on a busy CPU).
DEFAULT_CPU_THREADS = 1

#: FP32 matmul mode per precision: (``fp32_precision`` of PyTorch >= 2.9, ``set_float32_matmul_precision`` value).
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


def _read(get: Callable[[], Any]) -> Any:
    """``get()``, or None where PyTorch refuses the read (RuntimeError: legacy and new precision APIs mixed)."""
    try:
        return get()
    except RuntimeError:
        return None


@contextlib.contextmanager
def fp32_matmul_precision(torch: Any, precision: str) -> Iterator[tuple[tuple[str, str], ...]]:
    """Inside: FP32 matmuls in IEEE FP32 (``"fp32"``: no TF32) or in TF32 (``"tf32"``); restored on exit.

    Any other precision (``"bf16"``, ``"fp16"``, ...) leaves the setting alone.

    PyTorch >= 2.9 keeps two couplings of one setting: the legacy value (``set_float32_matmul_precision``,
    also written by ``backends.cuda.matmul.allow_tf32``) and per-backend values
    (``backends.cuda.matmul.fp32_precision``, ``backends.mkldnn.matmul.fp32_precision``). When they
    disagree, reading ``allow_tf32`` or ``get_float32_matmul_precision()`` raises RuntimeError (Inductor
    reads the latter). So, when the caller's state is readable, the legacy setter is used first (it writes
    all of them consistently) and then the new CUDA value; on exit the caller's legacy value and then its
    exact per-backend values are written back, so a state that was readable before is readable after, and a
    mixed one stays as it was. When the caller's legacy value cannot be read (the caller mixed the APIs),
    only ``backends.cuda.matmul.fp32_precision`` is set and restored. On PyTorch < 2.9 (no
    ``fp32_precision``) ``set_float32_matmul_precision`` alone. Nothing here reads ``allow_tf32``.

    Args:
        torch: the ``torch`` module (tests pass a fake).
        precision: ``"fp32"``, ``"tf32"``, or another name that leaves the setting alone.

    Yields:
        the settings in force, for the record: the CUDA matmul precision (``fp32_precision``, or the legacy
        value on PyTorch < 2.9) and the BF16 reduced-precision-reduction flag (read, not changed).
    """
    matmul = torch.backends.cuda.matmul
    new_api = _read(lambda: getattr(matmul, "fp32_precision", None)) is not None
    mkldnn = getattr(getattr(getattr(torch.backends, "mkldnn", None), "matmul", None), "fp32_precision", None) \
        if new_api else None
    key = "cuda.matmul.fp32_precision" if new_api else "float32_matmul_precision"

    def current() -> str:
        return str(matmul.fp32_precision if new_api else torch.get_float32_matmul_precision())

    def record() -> tuple[tuple[str, str], ...]:
        bf16_rr = getattr(matmul, "allow_bf16_reduced_precision_reduction", None)
        return ((key, current()), ("cuda.matmul.allow_bf16_reduced_precision_reduction", str(bf16_rr)))

    mode = _FP32_MODES.get(precision)
    if mode is None:
        yield record()
        return
    legacy = _read(torch.get_float32_matmul_precision)
    cuda_before = matmul.fp32_precision if new_api else None
    try:
        if legacy is not None:
            torch.set_float32_matmul_precision(mode[1])
        if new_api:
            matmul.fp32_precision = mode[0]
        yield record()
    finally:
        if legacy is not None:
            torch.set_float32_matmul_precision(legacy)
        if new_api:
            if mkldnn is not None:
                torch.backends.mkldnn.matmul.fp32_precision = mkldnn
            matmul.fp32_precision = cuda_before


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
