"""xpucalc.bench.coldstart: the first call in a fresh process whose compile caches are new and empty."""
from __future__ import annotations

import pytest

from xpucalc import bench
from xpucalc.bench import coldstart


def test_fresh_cache_env_points_every_cache_at_a_new_directory():
    env = coldstart.fresh_cache_env("/tmp/x", base={"PATH": "/bin"})
    assert env["TORCHINDUCTOR_CACHE_DIR"].startswith("/tmp/x/") and env["JAX_ENABLE_COMPILATION_CACHE"] == "false"
    assert env["TRITON_CACHE_DIR"] != env["TORCHINDUCTOR_CACHE_DIR"] and env["PATH"] == "/bin"
    assert {v for v in coldstart.CACHE_VARIABLES} <= set(env)


def test_cold_first_call_in_a_fresh_process():
    jax = pytest.importorskip("jax")
    before = jax.config.jax_enable_compilation_cache
    r = bench.run_jax("compiled", "fp32", 4, 16, 16, platform="cpu", warmup=0, reps=1, warmup_s=0, cold_compile=True)
    assert r.first_call_cold_s is not None and r.first_call_cold_s > 0
    assert dict(r.settings)["jax_enable_compilation_cache"] in ("True", "False")
    assert jax.config.jax_enable_compilation_cache == before  # disabled for the run only, then restored


def test_cold_first_call_that_fails_is_none():
    # a child that does not answer within timeout_s is killed, and there is no number (not an exception)
    assert coldstart.cold_first_call(bench.Condition("jax", "compiled", "fp32", 2, 8, 8), timeout_s=0.01) is None
