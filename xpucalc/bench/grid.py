"""The source's grid: every (path, precision, M) run with one framework, and looking results up.

Before the first compiled condition, :func:`run_grid` warms the compiler once on a throwaway shape
(:func:`warm_compiler`): ``torch.compile`` or ``jax.jit`` of the same layer at a shape that no measured
condition has, so no compile cache can serve a measured condition from it. The compiler's one-time
start-up (importing Inductor or starting XLA's pipeline, C++/Triton tool chains, worker pools) then
lands there, measured apart, and not in the first compiled condition's first call.
"""
from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from .conditions import FRAMEWORKS, PATHS, PRECISIONS, check_choice
from .results import BenchResult


@dataclass(frozen=True)
class CompilerWarmup:
    """The compiler's one-time start-up, measured on a throwaway shape before the first compiled condition.

    Attributes:
        framework: ``"torch"`` or ``"jax"``.
        m, k, n: the throwaway shape (X [m, k], W [k, n]), unlike every measured one.
        seconds: compile + first call of it, seconds (None when the warm-up failed).
        reason: why it failed (Korean; "" when it ran).
    """

    framework: str
    m: int
    k: int
    n: int
    seconds: float | None
    reason: str = ""

    @property
    def note(self) -> str:
        """What a compiled result says about it (Korean)."""
        if self.seconds is None:
            return f"컴파일러 준비(M={self.m}, k={self.k}, n={self.n})에 실패했습니다: {self.reason}"
        return (f"컴파일러의 1회성 시작 비용은 첫 컴파일 조건 전에 측정에 쓰지 않는 모양(M={self.m}, k={self.k}, "
                f"n={self.n})으로 따로 치렀습니다: {self.seconds * 1e3:,.0f} ms. 어느 조건의 첫 호출에도 들어 있지 않습니다")


def throwaway_shape(ms: Sequence[int], k: int, n: int) -> tuple[int, int, int]:
    """A small (m, k, n) whose m is not in ``ms`` and whose k and n differ from ``k`` and ``n`` (each >= 3)."""
    used_m = {int(m) for m in ms}
    wm = next(v for v in range(3, 3 + 2 * len(used_m) + 2) if v not in used_m)
    wk = next(v for v in (24, 40) if v != int(k))
    wn = next(v for v in (40, 56) if v != int(n))
    return wm, wk, wn


def _torch_warmup(m: int, k: int, n: int, precision: str, device: str, threads: int | None,
                  compile_mode: str) -> None:
    import torch

    from .environment import torch_device
    from .settings import torch_threads
    from .torch_backend import layer_module

    dev = torch_device(device)
    dtype = torch.float32 if precision == "fp32" else torch.bfloat16
    with torch_threads(torch, threads):
        try:
            w = torch.randn(k, n, dtype=dtype, device=dev)
            b = torch.randn(n, dtype=dtype, device=dev)
            torch._dynamo.reset()
            module = torch.compile(layer_module(torch, w, b), mode=compile_mode, dynamic=False)
            x = torch.randn(m, k, dtype=dtype, device=dev)
            with torch.inference_mode():
                for _ in range(1 if compile_mode == "default" else 3):  # CUDA-graph modes record on a later call
                    y = module(x).clone()
                y.sum().item()  # waits for the device
        finally:
            torch._dynamo.reset()  # the measured conditions compile from scratch


def _jax_warmup(m: int, k: int, n: int, precision: str, platform: str | None) -> None:
    import jax
    import jax.numpy as jnp
    import numpy as np

    from .settings import persistent_cache_disabled

    d = (jax.devices(platform) if platform else jax.devices())[0]
    dt = np.float32 if precision == "fp32" else jnp.bfloat16
    x, w, b = (jax.device_put(np.ones(s, np.float32).astype(dt), d) for s in ((m, k), (k, n), (n,)))
    with persistent_cache_disabled(jax):
        jax.jit(lambda x, w, b: jnp.maximum(jnp.dot(x, w) + b, 0))(x, w, b).block_until_ready()
    jax.clear_caches()


def warm_compiler(framework: str, m: int, k: int, n: int, precision: str = "fp32", **runner_kwargs: Any
                  ) -> CompilerWarmup:
    """Compile and call the layer once at (m, k, n) with ``torch.compile`` or ``jax.jit``, timed; never raises.

    Args:
        framework: ``"torch"`` or ``"jax"``.
        m, k, n: the throwaway shape (see :func:`throwaway_shape`).
        precision: ``"fp32"`` or ``"bf16"``.
        runner_kwargs: the runner's keywords; ``device``, ``threads``, ``compile_mode`` (torch) and
            ``platform`` (JAX) are used, the rest ignored.
    """
    check_choice(framework, "framework", FRAMEWORKS)
    t0 = time.perf_counter()
    try:
        if framework == "torch":
            from .settings import DEFAULT_CPU_THREADS

            _torch_warmup(m, k, n, precision, runner_kwargs.get("device", "auto"),
                          runner_kwargs.get("threads", DEFAULT_CPU_THREADS),
                          runner_kwargs.get("compile_mode", "default"))
        else:
            _jax_warmup(m, k, n, precision, runner_kwargs.get("platform"))
    except Exception as exc:  # noqa: BLE001 - the measured condition reports its own failure
        return CompilerWarmup(framework, m, k, n, None, f"{type(exc).__name__}: {str(exc)[:120]}")
    return CompilerWarmup(framework, m, k, n, time.perf_counter() - t0)


def _runner(framework: str) -> Callable[..., BenchResult]:
    if framework == "torch":
        from .torch_backend import run_torch

        return run_torch
    from .jax_backend import run_jax

    return run_jax


def _with_warmup(r: BenchResult, warm: CompilerWarmup) -> BenchResult:
    """``r`` with the warm-up's note and its seconds in ``compiler_setup_s``."""
    return dataclasses.replace(r, notes=(*r.notes, warm.note), compiler_setup_s=warm.seconds)


def run_grid(framework: str, *, paths: Sequence[str] = PATHS, precisions: Sequence[str] = PRECISIONS,
             ms: Sequence[int] = (128, 1), k: int = 1024, n: int = 1024, warm_up_compiler: bool = True,
             **runner_kwargs: Any) -> list[BenchResult]:
    """Run every (path, precision, M) of the source's grid with ``run_torch`` or ``run_jax``.

    Args:
        framework: ``"torch"`` or ``"jax"``.
        paths, precisions: the grid's paths and precisions, in this order.
        ms: the batch sizes M (whole numbers >= 1); k, n: W [k, n].
        warm_up_compiler: before the first compiled condition, compile the layer once at a throwaway shape
            (``xpucalc.bench.grid.warm_compiler``) so that no condition carries the compiler's one-time start-up;
            its time is in each compiled result's notes (and ``compiler_setup_s``).
        runner_kwargs: go to the runner (``device=``/``platform=``, ``warmup=``, ``reps=``, ``threads=``, ...).

    Order: path, then precision, then M -- the source's table order. One-time process
    setup is measured on its own before the first condition (each result's ``setup_s``).
    """
    check_choice(framework, "framework", FRAMEWORKS)
    runner = _runner(framework)
    out: list[BenchResult] = []
    warm: CompilerWarmup | None = None
    for p in paths:
        for prec in precisions:
            for m in ms:
                if p == "compiled" and warm_up_compiler and warm is None:
                    warm = warm_compiler(framework, *throwaway_shape(ms, k, n), prec, **runner_kwargs)
                r = runner(p, prec, m, k, n, **runner_kwargs)
                out.append(_with_warmup(r, warm) if p == "compiled" and warm is not None else r)
    return out


def find(results: Sequence[BenchResult], path: str, precision: str, m: int) -> BenchResult | None:
    """The result for (path, precision, m) in ``results``, or None if the grid did not include it."""
    for r in results:
        if r.key() == (path, precision, m):
            return r
    return None


__all__ = ["CompilerWarmup", "find", "run_grid", "throwaway_shape", "warm_compiler"]
