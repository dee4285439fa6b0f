"""xpucalc.bench.bandwidth: STREAM's kernels and byte counting, the array size past the cache, a second method."""
from __future__ import annotations

import pytest

from xpucalc import bench
from xpucalc.bench import bandwidth
from xpucalc.bench.timing import summarize

torch = pytest.importorskip("torch")


def test_default_nbytes_is_four_llc_on_cpu(monkeypatch):
    monkeypatch.setattr(bandwidth, "llc_bytes", lambda: 300 * 2**20 + 5)
    # 4 x (300 MiB + 5 B) rounded up to whole MiB = 1201 MiB
    assert bandwidth.default_nbytes("cpu") == 1201 * 2**20


@pytest.mark.parametrize("kwargs, word", [({"kind": "read"}, "kind"), ({"nbytes": 0}, "nbytes"),
                                          ({"nbytes": 2}, "nbytes"), ({"dtype": "int8"}, "dtype"),
                                          ({"reps": 0}, "reps"), ({"inner": 0}, "inner"),
                                          ({"nbytes": 2**50}, "nbytes")])
def test_stream_bad_input_names_the_argument(kwargs, word):
    args = {"kind": "copy", "nbytes": 2**20, "device": "cpu", **kwargs}
    with pytest.raises(ValueError, match=word):
        bench.stream(**args)


@pytest.mark.parametrize("kind, arrays", [("copy", 2), ("scale", 2), ("add", 3), ("triad", 3)])
def test_stream_counts_bytes_as_stream_does(kind, arrays):
    r = bench.stream(kind, 2**20, "cpu", reps=3, warmup_s=0.01)
    assert r.kind == kind and r.nbytes == 2**20 and r.threads == 1
    assert r.bytes_moved == arrays * 2**20
    assert r.bytes_per_s == pytest.approx(arrays * 2**20 / r.timing.median_s)
    assert r.best_bytes_per_s >= r.bytes_per_s > 0
    assert r.verified and r.evidence == "CPU 동작 확인"


def test_stream_result_golden_rate():
    # triad over 1e8-byte arrays: 3e8 bytes per pass; 0.1 s per pass -> 3 GB/s
    r = bandwidth.StreamResult("triad", 10**8, 3 * 10**8, summarize([0.1, 0.1, 0.2], warn=False), 1, "cpu",
                               "torch", "float32", 1, True)
    assert r.bytes_per_s == pytest.approx(3e9) and r.best_bytes_per_s == pytest.approx(3e9)


def test_stream_catches_a_kernel_that_does_not_run(monkeypatch):
    real = bandwidth._Arrays._init_torch

    def lazy(self, count, dtype):  # the arrays are made, the kernel is replaced by nothing
        real(self, count, dtype)
        self.call = lambda: None

    monkeypatch.setattr(bandwidth._Arrays, "_init_torch", lazy)
    assert not bench.stream("triad", 2**16, "cpu", reps=2, warmup_s=0.01).verified


def test_stream_sweep_sizes_and_numpy_comparison():
    assert bandwidth.sweep_sizes(2**20, 2**16, 4) == [2**16, 2**18, 2**20]
    assert bandwidth.sweep_sizes(3 * 2**18, 2**16, 4) == [2**16, 2**18, 3 * 2**18]
    with pytest.raises(ValueError, match="smallest"):
        bandwidth.sweep_sizes(2**10, 2**16)
    c = bandwidth.compare_copy_with_numpy(4 * 2**20, rounds=2, reps_per_round=2)
    assert c.nbytes == 4 * 2**20 and c.threads == 1
    assert c.ratio == pytest.approx(c.numpy.median_s / c.stream.median_s)


def test_stream_on_jax():
    pytest.importorskip("jax")
    s = bench.stream("triad", 2**16, "jax:cpu", reps=2, warmup_s=0.01)
    assert s.framework == "jax" and s.threads is None and s.verified and s.bytes_moved == 3 * 2**16
    with pytest.raises(ValueError, match="threads"):
        bench.stream("copy", 2**16, "jax:cpu", threads=2)
