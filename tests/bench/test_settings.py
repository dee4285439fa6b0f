"""xpucalc.bench.settings: framework settings set for a run and restored after it, tested with fakes of the frameworks."""
from __future__ import annotations

import types

import pytest

from xpucalc.bench import settings


def _fake_precision_torch(new_api: bool):
    calls = []
    matmul = types.SimpleNamespace(allow_bf16_reduced_precision_reduction=False)
    if new_api:
        matmul.fp32_precision = "tf32"
    state = {"p": "medium"}

    def setp(p):
        calls.append(p)
        state["p"] = p
    t = types.SimpleNamespace(backends=types.SimpleNamespace(cuda=types.SimpleNamespace(matmul=matmul)),
                              get_float32_matmul_precision=lambda: state["p"], set_float32_matmul_precision=setp)
    return t, matmul, state, calls


def test_fp32_sets_ieee_through_the_new_api_and_restores():
    t, matmul, state, calls = _fake_precision_torch(new_api=True)
    with settings.fp32_matmul_precision(t, "fp32") as record:
        assert matmul.fp32_precision == "ieee"
        assert dict(record)["cuda.matmul.fp32_precision"] == "ieee"
        assert dict(record)["cuda.matmul.allow_bf16_reduced_precision_reduction"] == "False"
    assert matmul.fp32_precision == "tf32" and calls == []  # the legacy setter is never used


def test_tf32_sets_tf32_and_restores_after_an_error():
    t, matmul, _, _ = _fake_precision_torch(new_api=True)
    matmul.fp32_precision = "none"
    with pytest.raises(KeyError):
        with settings.fp32_matmul_precision(t, "tf32") as record:
            assert matmul.fp32_precision == "tf32" and dict(record)["cuda.matmul.fp32_precision"] == "tf32"
            raise KeyError("boom")
    assert matmul.fp32_precision == "none"
    with pytest.raises(KeyError):
        with settings.fp32_matmul_precision(t, "fp32"):
            raise KeyError("boom")
    assert matmul.fp32_precision == "none"


def test_old_api_fallback():
    t, matmul, state, calls = _fake_precision_torch(new_api=False)
    with settings.fp32_matmul_precision(t, "fp32") as record:
        assert state["p"] == "highest" and dict(record)["float32_matmul_precision"] == "highest"
    assert state["p"] == "medium" and calls == ["highest", "medium"]
    with settings.fp32_matmul_precision(t, "tf32") as record:
        assert state["p"] == "high" and dict(record)["float32_matmul_precision"] == "high"
    assert state["p"] == "medium" and calls[2:] == ["high", "medium"]


@pytest.mark.parametrize("new_api", [True, False])
@pytest.mark.parametrize("precision", ["bf16", "fp16", "fp8"])
def test_other_precisions_leave_the_fp32_setting_alone(precision, new_api):
    t, matmul, state, calls = _fake_precision_torch(new_api)
    key, now = ("cuda.matmul.fp32_precision", "tf32") if new_api else ("float32_matmul_precision", "medium")
    with settings.fp32_matmul_precision(t, precision) as record:
        assert dict(record)[key] == now
    assert calls == [] and state["p"] == "medium" and getattr(matmul, "fp32_precision", "tf32") == "tf32"


def test_record_without_the_bf16_flag():
    t, matmul, _, _ = _fake_precision_torch(new_api=True)
    del matmul.allow_bf16_reduced_precision_reduction
    with settings.fp32_matmul_precision(t, "fp32") as record:
        assert dict(record)["cuda.matmul.allow_bf16_reduced_precision_reduction"] == "None"


class FakeThreads:
    def __init__(self, n):
        self.n, self.calls = n, []

    def get_num_threads(self):
        return self.n

    def set_num_threads(self, n):
        self.calls.append(n)
        self.n = n


def test_torch_threads_sets_and_restores():
    t = FakeThreads(8)
    with settings.torch_threads(t, 1) as used:
        assert used == 1 == t.n
    assert t.n == 8 and t.calls == [1, 8]
    with pytest.raises(KeyError):
        with settings.torch_threads(t, 3):
            raise KeyError("boom")
    assert t.n == 8
    t = FakeThreads(4)
    with settings.torch_threads(t, None) as used:   # None: leave as is
        assert used == 4
    assert t.calls == [4] and settings.DEFAULT_CPU_THREADS == 1


class FakeConfig:
    def __init__(self, **values):
        self.__dict__.update(values)
        self.updates = []

    def update(self, name, value):
        self.updates.append((name, value))
        setattr(self, name, value)


def test_persistent_cache_disabled_and_restored():
    cfg = FakeConfig(jax_enable_compilation_cache=True, jax_compilation_cache_dir="/c")
    jax = types.SimpleNamespace(config=cfg)
    with settings.persistent_cache_disabled(jax) as found:
        assert cfg.jax_enable_compilation_cache is False
        assert found == (("jax_enable_compilation_cache", "True"), ("jax_compilation_cache_dir", "/c"))
    assert cfg.jax_enable_compilation_cache is True
    assert cfg.updates == [("jax_enable_compilation_cache", False), ("jax_enable_compilation_cache", True)]
    old = types.SimpleNamespace(config=FakeConfig())       # a JAX without the option: nothing to switch
    with settings.persistent_cache_disabled(old) as found:
        assert found == (("jax_enable_compilation_cache", "None"), ("jax_compilation_cache_dir", "None"))
    assert old.config.updates == []
