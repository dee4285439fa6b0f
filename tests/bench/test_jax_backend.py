"""xpucalc.bench.jax_backend: run_jax on a CPU, and that its timed calls wait for JAX's asynchronous work."""
from __future__ import annotations

import statistics

import pytest
from _bench_checks import BAD_RUNNER_INPUTS, check_bad_input, check_ok

from xpucalc import bench

# tiny repetition counts on a shared CPU are often noisy; the flag itself is tested on synthetic timings
pytestmark = pytest.mark.filterwarnings("ignore::xpucalc.bench.NoisyTimingWarning")

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")


@pytest.mark.parametrize("kwargs, name", BAD_RUNNER_INPUTS)
def test_bad_input_raises_value_error(kwargs, name):
    check_bad_input(bench.run_jax, kwargs, name)


@pytest.mark.parametrize("precision", bench.PRECISIONS)
@pytest.mark.parametrize("path", bench.PATHS)
def test_run_jax_cpu(path, precision):
    r = bench.run_jax(path, precision, 8, 256, 128, platform="cpu", warmup=1, reps=4, warmup_s=0)
    check_ok(r, "jax", path, precision)
    assert r.recompiles == (0 if path == "compiled" else None)
    assert r.compile_cache_hit == (False if path == "compiled" else None) and r.gpu is None


def test_cpu_boundaries_are_interleaved_in_rounds():
    r = bench.run_jax("eager", "fp32", 2, 16, 16, platform="cpu", warmup=0, reps=6, rounds=3, warmup_s=0)
    assert r.rounds == 3 and r.device.n == r.with_transfer.n == 6
    r = bench.run_jax("eager", "fp32", 2, 16, 16, platform="cpu", warmup=0, reps=5, warmup_s=0)
    assert r.rounds == 5   # default: one call of each boundary per round


def test_missing_platform_is_a_record():
    try:
        jax.devices("tpu")
        pytest.skip("the machine has a TPU")
    except RuntimeError:
        pass
    r = bench.run_jax("compiled", "bf16", 1, 16, 16, platform="tpu")
    assert r.status == bench.UNSUPPORTED and "tpu" in r.reason and r.environment is None


def test_missing_framework_is_a_record(monkeypatch):
    import builtins

    real_import = builtins.__import__

    def fake_import(name, *args, **kwargs):
        if name == "jax" or name.startswith("jax."):
            raise ImportError("no jax")
        return real_import(name, *args, **kwargs)
    monkeypatch.setattr(builtins, "__import__", fake_import)
    r = bench.run_jax("eager", "fp32", 1, 16, 16)
    assert r.status == bench.UNSUPPORTED and "JAX" in r.reason


def test_timing_jax_waits_for_async_work():
    """Dispatch returns before the matmul finishes; timing with block_until_ready must see the full time."""
    x = jnp.ones((1024, 1024), jnp.float32)
    f = jax.jit(lambda a: a @ a)
    f(x).block_until_ready()
    no_wait = bench.summarize(bench.time_calls(lambda: f(x), 1, 7), warn=False)
    jax.block_until_ready(f(x))
    waited = bench.summarize(bench.time_calls(lambda: f(x), 1, 7, sync=lambda y: y.block_until_ready()),
                             warn=False)
    # a 1024^3 matmul is ~2 GFLOP: tens of ms on a CPU, while a dispatch takes well under 1 ms
    assert no_wait.median_s < waited.median_s / 5
    assert waited.median_s > 1e-3


def test_jax_timed_loop_waits_for_the_device():
    """run_jax's median against the same jitted call timed here with block_until_ready, alternating in rounds:
    a harness that stops the clock at dispatch (no block_until_ready) reads a small fraction of it."""
    x_np, w_np, b_np = bench.make_inputs(512, 1024, 1024)
    x, w, b = (jnp.asarray(a) for a in (x_np, w_np, b_np))
    f = jax.jit(lambda x, w, b: jnp.maximum(jnp.dot(x, w, precision=jax.lax.Precision.HIGHEST) + b, 0))
    f(x, w, b).block_until_ready()
    ratios = []
    for _ in range(3):
        mine: list[float] = []
        ref: list[float] = []
        for _ in range(3):
            ref += bench.time_calls(lambda: f(x, w, b), 1, 4, sync=lambda y: y.block_until_ready())
            r = bench.run_jax("compiled", "fp32", 512, 1024, 1024, platform="cpu", warmup=1, reps=4, warmup_s=0)
            mine += r.device.samples_s
        ratios.append(statistics.median(mine) / statistics.median(ref))
        if 0.5 <= ratios[-1] <= 2.0:
            break
    assert 0.5 <= ratios[-1] <= 2.0, ratios
