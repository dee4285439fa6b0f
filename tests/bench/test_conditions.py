"""xpucalc.bench.conditions: a grid cell (Condition) and how it is measured (Options), checked when made."""
from __future__ import annotations

import pytest

from xpucalc import bench
from xpucalc.bench.conditions import GPU_BATCH, Condition, Options, check_choice


def test_condition_holds_the_cell_and_what_follows_from_it():
    c = Condition("torch", "compiled", "bf16", 128)
    assert (c.k, c.n) == (1024, 1024) and c.key() == ("compiled", "bf16", 128)
    assert c.path_label == "torch.compile" and c.label == "torch compiled bf16 M=128"
    # F = 2 x 128 x 1024 x 1024 = 268,435,456; Q_min = 2 B x (128 x 1024 + 1024 x 1024 + 1024 + 128 x 1024)
    assert c.workload.flops == 268_435_456 and c.workload.bytes == 2_623_488
    assert Condition("jax", "compiled", "fp32", 2, 16, 8).path_label == "jax.jit (XLA)"
    assert Condition("jax", "eager", "fp32", 1).path_label == "JAX Eager"
    m = Condition("jax", "eager", "fp32", 4.0, 16.0, 8)   # whole numbers are stored as int
    assert (m.m, m.k, m.n) == (4, 16, 8) and type(m.m) is int
    assert Condition("torch", "eager", "fp32", 1) == Condition("torch", "eager", "fp32", 1, 1024, 1024)


@pytest.mark.parametrize("args, pattern", [
    (("tensorflow", "eager", "fp32", 1), r"^framework must be one of 'torch', 'jax', got 'tensorflow'"),
    (("torch", "graph", "fp32", 1), r"^path must be one of 'eager', 'compiled', got 'graph'"),
    (("torch", "eager", "fp16", 1), r"^precision must be one of 'fp32', 'bf16', got 'fp16'"),
    (("torch", "eager", "fp32", 0), r"^m must be a whole number >= 1, got 0"),
    (("torch", "eager", "fp32", 1, 2.5), r"^k must be a whole number >= 1"),
    (("torch", "eager", "fp32", 1, 8, -1), r"^n must be a whole number >= 1"),
])
def test_condition_refuses_bad_values(args, pattern):
    with pytest.raises(ValueError, match=pattern):
        Condition(*args)


def test_options_defaults_and_counts():
    o = Options()
    assert (o.warmup, o.reps, o.seed, o.tolerance, o.rounds, o.cold_compile) == (None, None, 0, None, None, False)
    assert o.noisy_threshold == 0.10 and o.warmup_s == 0.1 and o.batch == GPU_BATCH == 50
    gpu = bench.Environment("torch", "2", "cuda", "G", 1)
    cpu = bench.Environment("torch", "2", "cpu", "x", 1)
    assert o.counts(gpu) == (50, 500) and o.counts(cpu) == (3, 30) and o.counts(None) == (3, 30)
    assert Options(warmup=0).counts(gpu) == (0, 500) and Options(reps=7).counts(cpu) == (3, 7)


@pytest.mark.parametrize("kwargs, pattern", [
    ({"warmup": -1}, r"^warmup must be >= 0, got -1"),
    ({"reps": 0}, r"^reps must be >= 1, got 0"),
    ({"reps": 2.5}, r"^reps must be a whole number >= 1"),
    ({"noisy_threshold": 0}, r"^noisy_threshold must be > 0"),
])
def test_options_refuse_bad_values(kwargs, pattern):
    with pytest.raises(ValueError, match=pattern):
        Options(**kwargs)


def test_vocabulary():
    assert bench.PATHS == ("eager", "compiled") and bench.PRECISIONS == ("fp32", "bf16")
    assert bench.DTYPE_BYTES == {"fp32": 4, "bf16": 2}
    assert check_choice("a", "x", ("a", "b")) == "a"
    with pytest.raises(ValueError, match=r"^x must be one of 'a', 'b', got 'c'"):
        check_choice("c", "x", ("a", "b"))


def test_options_refuse_nan_negative_zero_and_string_values():
    import math

    import pytest
    from xpucalc.bench.conditions import Options
    for kw, name in ((dict(warmup_s=math.nan), "warmup_s"), (dict(warmup_s=-1), "warmup_s"),
                     (dict(tolerance=math.nan), "tolerance"), (dict(tolerance=-1), "tolerance"),
                     (dict(rounds=0), "rounds"), (dict(rounds=-1), "rounds"), (dict(batch=0), "batch"),
                     (dict(seed=1.5), "seed"), (dict(seed=-1), "seed"), (dict(cold_compile="False"), "cold_compile")):
        with pytest.raises(ValueError, match=rf"^{name} "):
            Options(**kw)
