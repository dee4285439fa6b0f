"""xpucalc.bench.settings: framework settings set for a run and restored after it.

The FP32 matmul precision is tested with real PyTorch in every state a caller may leave it in (the legacy and
the new API are coupled, and reads raise when they disagree), and with ``_fake_cuda.FakePrecisionTorch``
(checked against real PyTorch here) for the order of writes and for PyTorch < 2.9.
"""
from __future__ import annotations

import types

import pytest

from xpucalc.bench import settings


# --------------------------------------------------------------------------- FP32 matmul precision, real PyTorch

#: The caller's states the harness must work after (issue 20, defect 7), as code run before the harness.
CALLER_STATES = {
    "default": "",
    "set_float32_matmul_precision high": 'torch.set_float32_matmul_precision("high")',
    "set_float32_matmul_precision medium": 'torch.set_float32_matmul_precision("medium")',
    "cuda.matmul.fp32_precision tf32": 'torch.backends.cuda.matmul.fp32_precision = "tf32"',
    "global fp32_precision tf32": 'torch.backends.fp32_precision = "tf32"',
    "legacy allow_tf32 True": "torch.backends.cuda.matmul.allow_tf32 = True",
    "mixed: high, then cuda ieee": 'torch.set_float32_matmul_precision("high")\n'
                                   'torch.backends.cuda.matmul.fp32_precision = "ieee"',
}

#: Per-backend precision attributes of PyTorch >= 2.9 and their values in a fresh process.
_FRESH = (("", "none"), ("cuda.matmul", "none"), ("mkldnn.matmul", "none"), ("cudnn", "none"),
          ("cudnn.conv", "tf32"), ("cudnn.rnn", "tf32"), ("mkldnn", "none"), ("mkldnn.conv", "none"),
          ("mkldnn.rnn", "none"))


def _backend(torch, path):
    obj = torch.backends
    for part in filter(None, path.split(".")):
        obj = getattr(obj, part)
    return obj


def _snapshot(torch):
    """Everything a caller may read afterwards; ``RAISE`` where torch refuses the read."""
    def read(get):
        try:
            return get()
        except RuntimeError:
            return "RAISE"
    snap = {"allow_tf32": read(lambda: torch.backends.cuda.matmul.allow_tf32),
            "float32_matmul_precision": read(torch.get_float32_matmul_precision)}
    for path, _ in _FRESH:
        snap[path or "global"] = getattr(_backend(torch, path), "fp32_precision", None)
    return snap


@pytest.fixture
def real_torch():
    """Real PyTorch with the new precision API, reset to a fresh process's precision state before and after."""
    torch = pytest.importorskip("torch")
    if not hasattr(torch.backends.cuda.matmul, "fp32_precision"):
        pytest.skip("PyTorch < 2.9: no fp32_precision API")

    def reset():
        torch.set_float32_matmul_precision("highest")
        for path, value in _FRESH:
            setattr(_backend(torch, path), "fp32_precision", value)
    reset()
    yield torch
    reset()


@pytest.mark.parametrize("precision, inside", [("fp32", "ieee"), ("tf32", "tf32"), ("bf16", None)])
@pytest.mark.parametrize("state", list(CALLER_STATES))
def test_real_torch_every_caller_state_is_readable_inside_and_restored(real_torch, state, precision, inside):
    torch = real_torch
    exec(CALLER_STATES[state], {"torch": torch})
    before = _snapshot(torch)
    with settings.fp32_matmul_precision(torch, precision) as record:
        now = _snapshot(torch)
        assert dict(record)["cuda.matmul.fp32_precision"] == (inside or before["cuda.matmul"])
        assert now["cuda.matmul"] == (inside or before["cuda.matmul"])
        if inside is None:
            assert now == before
        elif before["float32_matmul_precision"] != "RAISE":
            # the caller's legacy value was readable: both reads work inside (Inductor reads
            # get_float32_matmul_precision; allow_tf32 is the legacy flag) and say what is in force
            assert now["allow_tf32"] == (inside == "tf32"), now
            assert now["float32_matmul_precision"] == {"ieee": "highest", "tf32": "high"}[inside]
        # else the caller had mixed the APIs (legacy value unreadable): only the CUDA value is ours to set
    assert _snapshot(torch) == before


def test_real_torch_restores_after_an_error(real_torch):
    torch = real_torch
    torch.set_float32_matmul_precision("high")
    before = _snapshot(torch)
    with pytest.raises(KeyError):
        with settings.fp32_matmul_precision(torch, "fp32"):
            raise KeyError("boom")
    assert _snapshot(torch) == before and torch.get_float32_matmul_precision() == "high"
    assert torch.backends.cuda.matmul.allow_tf32 is True


@pytest.mark.parametrize("state", list(CALLER_STATES))
def test_fake_precision_torch_follows_real_torch(real_torch, state):
    """The fake used for the older-PyTorch tests couples the two APIs as the real one does."""
    from _fake_cuda import FakePrecisionTorch

    fake = FakePrecisionTorch()
    for t in (real_torch, fake):
        exec(CALLER_STATES[state], {"torch": t})
    keys = ("allow_tf32", "float32_matmul_precision", "cuda.matmul", "mkldnn.matmul")
    real = _snapshot(real_torch)

    def read(get):
        try:
            return get()
        except RuntimeError:
            return "RAISE"
    mine = {"allow_tf32": read(lambda: fake.backends.cuda.matmul.allow_tf32),
            "float32_matmul_precision": read(fake.get_float32_matmul_precision),
            "cuda.matmul": fake.cuda, "mkldnn.matmul": fake.mkldnn}
    if state.startswith("global"):   # the fake has no global value: a global "tf32" reads as tf32 on both backends
        fake.cuda = fake.mkldnn = "tf32"
        mine.update({"allow_tf32": read(lambda: fake.backends.cuda.matmul.allow_tf32),
                     "float32_matmul_precision": read(fake.get_float32_matmul_precision),
                     "cuda.matmul": "tf32", "mkldnn.matmul": "tf32"})
    assert {k: real[k] for k in keys} == mine


# --------------------------------------------------------------------------- FP32 matmul precision, faked

def _fake(new_api=True):
    from _fake_cuda import FakePrecisionTorch

    return FakePrecisionTorch(new_api)


def test_fp32_uses_the_legacy_setter_then_the_new_api_and_restores_in_that_order():
    t = _fake()
    t.set_float32_matmul_precision("medium")
    t.calls.clear()
    with settings.fp32_matmul_precision(t, "fp32") as record:
        assert (t.cuda, t.mkldnn, t.legacy) == ("ieee", "ieee", "highest")
        assert dict(record)["cuda.matmul.fp32_precision"] == "ieee"
        assert dict(record)["cuda.matmul.allow_bf16_reduced_precision_reduction"] == "True"
        assert t.backends.cuda.matmul.allow_tf32 is False and t.get_float32_matmul_precision() == "highest"
    assert (t.cuda, t.mkldnn, t.legacy) == ("tf32", "bf16", "medium")
    assert t.calls == [("legacy", "highest"), ("cuda", "ieee"), ("legacy", "medium"), ("mkldnn", "bf16"),
                       ("cuda", "tf32")]
    assert not any(c[0] == "allow_tf32" for c in t.calls)   # the legacy flag is never written


def test_mixed_caller_state_only_the_new_cuda_value_is_set():
    t = _fake()
    t.backends.cuda.matmul.fp32_precision = "tf32"    # new API over the legacy "highest": legacy reads raise
    t.calls.clear()
    with pytest.raises(RuntimeError):
        t.get_float32_matmul_precision()
    with settings.fp32_matmul_precision(t, "fp32") as record:
        assert t.cuda == "ieee" and dict(record)["cuda.matmul.fp32_precision"] == "ieee"
        assert t.backends.cuda.matmul.allow_tf32 is False      # consistent again inside
    assert t.cuda == "tf32" and all(c[0] != "legacy" for c in t.calls)


def test_tf32_sets_tf32_and_restores_after_an_error():
    t = _fake()
    with pytest.raises(KeyError):
        with settings.fp32_matmul_precision(t, "tf32") as record:
            assert t.cuda == "tf32" and dict(record)["cuda.matmul.fp32_precision"] == "tf32"
            assert t.get_float32_matmul_precision() == "high" and t.backends.cuda.matmul.allow_tf32 is True
            raise KeyError("boom")
    assert (t.cuda, t.mkldnn, t.legacy) == ("none", "none", "highest")


def test_old_api_fallback():
    t = _fake(new_api=False)
    t.set_float32_matmul_precision("medium")
    t.calls.clear()
    with settings.fp32_matmul_precision(t, "fp32") as record:
        assert t.legacy == "highest" and dict(record)["float32_matmul_precision"] == "highest"
    assert t.legacy == "medium" and t.calls == [("legacy", "highest"), ("legacy", "medium")]
    with settings.fp32_matmul_precision(t, "tf32") as record:
        assert t.legacy == "high" and dict(record)["float32_matmul_precision"] == "high"
    assert t.legacy == "medium" and t.calls[2:] == [("legacy", "high"), ("legacy", "medium")]


@pytest.mark.parametrize("new_api", [True, False])
@pytest.mark.parametrize("precision", ["bf16", "fp16", "fp8"])
def test_other_precisions_leave_the_fp32_setting_alone(precision, new_api):
    t = _fake(new_api)
    key, now = ("cuda.matmul.fp32_precision", "none") if new_api else ("float32_matmul_precision", "highest")
    with settings.fp32_matmul_precision(t, precision) as record:
        assert dict(record)[key] == now
    assert t.calls == []


def test_record_without_the_bf16_flag():
    t = _fake()
    del type(t.backends.cuda.matmul).allow_bf16_reduced_precision_reduction
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
