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


def test_child_env_does_not_preallocate_and_names_the_platform():
    env = coldstart.fresh_cache_env("/tmp/x", base={"PATH": "/bin"}, jax_platforms="cuda,cpu")
    assert env["XLA_PYTHON_CLIENT_PREALLOCATE"] == "false" and env["JAX_PLATFORMS"] == "cuda,cpu"
    assert "JAX_PLATFORMS" not in coldstart.fresh_cache_env("/tmp/x", base={})
    # "gpu" is an alias JAX expands to cuda, rocm and oneapi (and fails on the missing ones): a concrete name
    assert coldstart.jax_platforms_for("gpu") == "cuda,cpu" and coldstart.jax_platforms_for("tpu") == "tpu,cpu"
    assert coldstart.jax_platforms_for("cpu") == "cpu" and coldstart.jax_platforms_for(None) is None


class FakeChild:
    """Stands in for subprocess.run: records the command and environment, answers as the child would."""

    def __init__(self, platform, device="", returncode=0, stderr=""):
        self.platform, self.device, self.returncode, self.stderr = platform, device, returncode, stderr
        self.calls = []

    def __call__(self, cmd, **kw):
        import json
        import subprocess

        self.calls.append((cmd, kw))
        out = json.dumps({"first_call_s": 1.25, "cache_hit": False, "platform": self.platform, "device": self.device})
        return subprocess.CompletedProcess(cmd, self.returncode, out + "\n", self.stderr)


@pytest.mark.parametrize("framework, device, reported, ok", [
    ("jax", "gpu", "cpu", False), ("jax", "gpu", "gpu", True), ("jax", "tpu", "cpu", False),
    ("jax", "cpu", "cpu", True), ("torch", "cuda:0", "cpu", False), ("torch", "cuda:0", "cuda", True),
    ("jax", None, "cpu", True)])
def test_a_child_on_another_device_gives_no_number(monkeypatch, framework, device, reported, ok):
    child = FakeChild(reported, "NVIDIA H200" if reported in ("gpu", "cuda") else "CPU")
    monkeypatch.setattr(coldstart.subprocess, "run", child)
    cond = bench.Condition(framework, "compiled", "fp32", 2, 8, 8)
    r = coldstart.cold_start(cond, device=device)
    assert (r.first_call_s == 1.25) is ok and r.platform == reported and bool(r.reason) is not ok
    assert coldstart.cold_first_call(cond, device=device) == r.first_call_s
    env = child.calls[0][1]["env"]
    assert env["XLA_PYTHON_CLIENT_PREALLOCATE"] == "false"
    if framework == "jax" and device == "gpu":
        assert env["JAX_PLATFORMS"] == "cuda,cpu"
    if not ok:
        assert reported in r.reason


def test_a_failed_child_says_why(monkeypatch):
    err = "Traceback ...\nRuntimeError: Unable to initialize backend 'cuda'"
    monkeypatch.setattr(coldstart.subprocess, "run", FakeChild("", returncode=1, stderr=err))
    r = coldstart.cold_start(bench.Condition("jax", "compiled", "fp32", 2, 8, 8), device="gpu")
    assert r.first_call_s is None and "Unable to initialize backend 'cuda'" in r.reason


def test_real_child_reports_the_platform_it_ran_on():
    pytest.importorskip("jax")
    cond = bench.Condition("jax", "compiled", "fp32", 2, 8, 8)
    r = coldstart.cold_start(cond, device="cpu")
    assert r.first_call_s is not None and r.first_call_s > 0 and r.platform == "cpu" and r.reason == ""
    # asked for a TPU that is not there: JAX_PLATFORMS makes the child fail instead of compiling on the CPU
    r = coldstart.cold_start(cond, device="tpu")
    assert r.first_call_s is None and r.reason
