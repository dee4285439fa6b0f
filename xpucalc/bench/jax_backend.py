"""JAX runner: Y = ReLU(XW + b) on CPU, GPU or TPU, eager (op by op) or ``jax.jit``.

JAX dispatches asynchronously: a call returns before the device has finished,
so every timed call here ends with ``block_until_ready()`` *inside* the timed
interval. JAX has no CUDA events; its clock is the host's ``perf_counter``. To
compare with PyTorch on a GPU, use the PyTorch result's host-clock number
(``gpu.per_call_host``), measured with the same clock.

The first call runs after ``jax.clear_caches()`` with the persistent
compilation cache disabled (for the whole run, restored after), so it includes a
compile that no earlier run can have cached; the cache settings found are recorded.
"""
from __future__ import annotations

import time
from typing import Any

import numpy as np

from .accuracy import check_accuracy, make_inputs, reference_output
from .conditions import GPU_BATCH, Condition, Options
from .environment import Environment, jax_environment
from .results import BenchResult, GpuTimings, reason, startup_reason, unsupported
from .settings import persistent_cache_disabled
from .timing import NOISY_THRESHOLD, WARMUP_MIN_S, LastOutput, interleaved, summarize, time_batches, time_calls, warm_up


def run_jax(path: str, precision: str, m: int, k: int = 1024, n: int = 1024, *, platform: str | None = None,
            warmup: int | None = None, reps: int | None = None, seed: int = 0, tolerance: float | None = None,
            noisy_threshold: float = NOISY_THRESHOLD, rounds: int | None = None, warmup_s: float = WARMUP_MIN_S,
            cold_compile: bool = False, batch: int = GPU_BATCH) -> BenchResult:
    """Run Y = ReLU(XW + b) with JAX and measure the boundaries.

    Args:
        path: ``"eager"`` (each of dot, add, max dispatched on its own) or ``"compiled"``
            (``jax.jit``); ``jax.clear_caches()`` runs first, so the first call includes compilation.
        precision: ``"fp32"`` (float32 arrays, ``Precision.HIGHEST``) or ``"bf16"``
            (bfloat16 arrays, ``Precision.DEFAULT``).
        m, k, n: X [m, k], W [k, n].
        platform: ``None`` (JAX's default backend), ``"cpu"``, ``"gpu"`` or ``"tpu"``.
        warmup, reps, seed, tolerance, noisy_threshold, rounds, warmup_s, cold_compile: as in
            :func:`~xpucalc.bench.run_torch`. JAX's CPU thread count is fixed when JAX
            starts (``XLA_FLAGS``); the environment records it.
        batch: calls per back-to-back group on an accelerator.

    Every timed call ends with ``block_until_ready()``; the copy boundary uses
    ``jax.device_put`` for X and ``np.asarray`` (device->host) for Y.
    """
    cond = Condition("jax", path, precision, m, k, n)
    opts = Options(warmup=warmup, reps=reps, seed=seed, tolerance=tolerance, noisy_threshold=noisy_threshold,
                   rounds=rounds, warmup_s=warmup_s, cold_compile=cold_compile, batch=batch)
    try:
        import jax
    except ImportError:
        return unsupported(cond, "JAX가 설치되어 있지 않습니다")
    try:
        env = jax_environment(platform)
    except Exception as exc:  # noqa: BLE001
        return unsupported(cond, startup_reason(exc))
    return _run(jax, env, cond, opts, platform)


def _run(jax: Any, env: Environment, cond: Condition, opts: Options, platform: str | None) -> BenchResult:
    import jax.numpy as jnp
    from jax import lax

    warmup, reps = opts.counts(env)
    d = (jax.devices(platform) if platform else jax.devices())[0]
    dtype = jnp.float32 if cond.precision == "fp32" else jnp.bfloat16
    prec = lax.Precision.HIGHEST if cond.precision == "fp32" else lax.Precision.DEFAULT
    x_np, w_np, b_np = make_inputs(cond.m, cond.k, cond.n, opts.seed)
    y_ref = reference_output(x_np, w_np, b_np)

    def layer(x, w, b):  # noqa: ANN001, ANN202
        return jnp.maximum(jnp.dot(x, w, precision=prec) + b, 0)

    try:
        np_dtype = np.dtype(dtype)
        x_host = x_np.astype(np_dtype)
        t0 = time.perf_counter()
        x, w, b = (jax.device_put(a.astype(np_dtype), d) for a in (x_np, w_np, b_np))
        jax.block_until_ready((x, w, b))
        setup_s = time.perf_counter() - t0
    except Exception as exc:  # noqa: BLE001
        return unsupported(cond, f"{cond.precision} 배열 생성 실패: {reason(exc)}", env)

    compiled = cond.path == "compiled"
    jax.clear_caches()
    fn = jax.jit(layer) if compiled else layer
    label = cond.label
    # the persistent cache stays off for the whole run: switching it back on changes JAX's config, which is part
    # of the compile-cache key, and the first steady-state call would compile again
    with persistent_cache_disabled(jax) as settings:
        t0 = time.perf_counter()
        try:
            y = fn(x, w, b).block_until_ready()
        except Exception as exc:  # noqa: BLE001
            what = "jax.jit 실패" if compiled else "실행 실패"
            return unsupported(cond, f"{what}: {reason(exc)}", env)
        first = time.perf_counter() - t0
        cache_size = getattr(fn, "_cache_size", None)
        after_first = cache_size() if (compiled and cache_size) else None
        acc_first = check_accuracy(np.asarray(y.astype(jnp.float32)), y_ref, cond.precision, opts.tolerance)

        device_call = LastOutput(lambda: fn(x, w, b).block_until_ready())

        def copies() -> Any:
            return np.asarray(fn(jax.device_put(x_host, d), w, b))

        notes: list[str] = list(env.caveats())
        gpu = None
        if env.kind == "cpu":
            n_rounds = opts.rounds if opts.rounds is not None else reps  # one call of each boundary per round
            s = interleaved({"device": device_call, "copies": copies}, warmup, reps, n_rounds,
                            warmup_s=opts.warmup_s)
            dev_samples, xfer_samples = s["device"], s["copies"]
            notes.append("CPU 실행: 호스트와 장치가 같아 '전송 포함'의 복사는 메모리 복사일 뿐입니다")
        else:
            n_rounds = 1
            warm_up(device_call, min_time_s=opts.warmup_s, min_calls=warmup)
            dev_samples = time_calls(device_call, 0, reps)
            xfer_samples = time_calls(copies, warmup, reps)
            b2b = time_batches(lambda: fn(x, w, b), max(2, reps // opts.batch), opts.batch,
                               sync=lambda out: out.block_until_ready())
            gpu = GpuTimings(summarize(dev_samples, opts.noisy_threshold, label=f"{label} (호출 1회)"),
                             summarize(b2b, opts.noisy_threshold, label=f"{label} (연속 호출)"), batch=opts.batch,
                             clock="host")
            notes.append("JAX 시간은 호스트 시계(perf_counter + block_until_ready)로 잽니다: PyTorch와 비교할 때는 "
                         "PyTorch의 호스트 시계 값(호출 1회, 호스트 시계)을 쓰십시오")
        acc_last = check_accuracy(np.asarray(device_call.value.astype(jnp.float32)), y_ref, cond.precision,
                                  opts.tolerance)
    recompiles = None
    if after_first is not None:
        recompiles = cache_size() - after_first
        if recompiles:
            notes.append(f"첫 호출 뒤 재컴파일 {recompiles}회: 반복 측정에 컴파일 시간이 섞였을 수 있습니다")
    cold = None
    if opts.cold_compile and compiled:
        from .coldstart import cold_start

        # the platform this run used, never JAX's default in the child: that falls back to the CPU quietly
        report = cold_start(cond, device=platform or env.kind)
        cold = report.first_call_s
        if cold is None:
            notes.append(f"새 프로세스의 콜드 컴파일 측정에 실패했습니다: {report.reason}")
    return BenchResult(cond, environment=env, first_call_s=first,
                       device=summarize(dev_samples, opts.noisy_threshold, label=f"{label} (장치 상주)"),
                       with_transfer=summarize(xfer_samples, opts.noisy_threshold, label=f"{label} (전송 포함)"),
                       accuracy_first=acc_first, recompiles=recompiles,
                       compile_cache_hit=False if compiled else None, warmup=warmup, reps=reps, notes=tuple(notes),
                       accuracy_last=acc_last, gpu=gpu, first_call_cold_s=cold, setup_s=setup_s, settings=settings,
                       rounds=n_rounds)


__all__ = ["run_jax"]
