"""Bad input raises ValueError (or KeyError for catalog keys) whose message names the argument."""
import math
import re

import pytest

import xpucalc as xc
from xpucalc import llm, units

A = xc.Device("A", 200e12, 1e12, 16e9)

CASES = [
    ("peak_flops", lambda: xc.Device("x", 0, 1e12)),
    ("peak_flops", lambda: xc.Device("x", -1e12, 1e12)),
    ("bandwidth", lambda: xc.Device("x", 1e12, math.nan)),
    ("bandwidth", lambda: xc.Device("x", 1e12, math.inf)),
    ("memory", lambda: xc.Device("x", 1e12, 1e12, memory=-5)),
    ("flops", lambda: xc.Workload("w", 0, 10)),
    ("bytes", lambda: xc.Workload("w", 10, -1)),
    ("m", lambda: xc.linear_layer(0, 1024, 1024, 2)),
    ("k", lambda: xc.linear_layer(1, 10.5, 1024, 2)),
    ("dtype_bytes", lambda: xc.linear_layer(1, 1024, 1024, 0)),
    ("intensity", lambda: xc.attainable(0, A)),
    ("intensity", lambda: xc.attainable(math.nan, A)),
    ("power_w", lambda: xc.energy_per_request(-400, 100)),
    ("throughput_rps", lambda: xc.energy_per_request(400, 0)),
    ("price_per_hour", lambda: xc.cost_per_request(math.inf, 10)),
    ("compile_a", lambda: xc.breakeven_runs(-1, 0.1, 0, 0.2)),
    ("per_run_b", lambda: xc.breakeven_runs(1, 0.1, 0, math.nan)),
    ("device_s", lambda: xc.Path("p", -1, 0, 0)),
    ("model_bytes", lambda: llm.decode_tokens_per_s_bound(0, 3.35e12)),
    ("bandwidth", lambda: llm.decode_tokens_per_s_bound(140e9, -1)),
    ("mfu", lambda: llm.train_time_s(70e9, 15e12, 16000, 989e12, 1.5)),
    ("mfu", lambda: llm.train_time_s(70e9, 15e12, 16000, 989e12, 0)),
    ("n_devices", lambda: llm.train_time_s(70e9, 15e12, 0, 989e12, 0.4)),
    ("kv_heads", lambda: llm.kv_cache_bytes(80, 0, 128, 8192)),
    ("seq_len", lambda: llm.kv_cache_bytes(80, 8, 128, -8192)),
    ("n_ranks", lambda: llm.allreduce_time_s(14e9, 32e9, 1)),
    ("size_bytes", lambda: llm.allreduce_time_s(math.nan, 32e9, 8)),
    ("tokens_per_s", lambda: llm.mfu(7e9, 0, 8, 312e12)),
    ("n_params", lambda: llm.chinchilla_tokens(-7e9)),
    ("sparse_peak", lambda: units.sparse_to_dense(0)),
    ("gib", lambda: units.gib_to_gb(math.nan)),
]


@pytest.mark.parametrize("name, call", CASES, ids=[f"{i}-{n}" for i, (n, _) in enumerate(CASES)])
def test_bad_input_names_the_argument(name, call):
    # the argument's name as a whole word ("XXpower_wXX" or "None" would not do)
    with pytest.raises(ValueError, match=rf"\b{re.escape(name)}\b"):
        call()


def test_booleans_are_not_numbers():
    with pytest.raises(ValueError, match="peak_flops"):
        xc.Device("x", True, 1e12)


def test_sparse_peak_cannot_be_used_for_dense_work():
    sparse = xc.Device("H100 sparse", 1979e12, 3.35e12, sparse=True)
    dense_work = xc.Workload("dense matmul", 1e12, 1e9)
    with pytest.raises(ValueError, match=r"device 'H100 sparse' carries a sparse \(2:4\) peak_flops but workload "
                                         r"'dense matmul' is dense; use device.dense\(\)"):
        xc.roofline(dense_work, sparse)
    # the explicit conversion is allowed and halves the peak
    assert xc.roofline(dense_work, sparse.dense()).device.peak_flops == pytest.approx(989.5e12)
    # a workload that really is 2:4 sparse may use the sparse peak
    assert xc.roofline(xc.Workload("sparse", 1e12, 1e9, sparse=True), sparse).compute_time == pytest.approx(1e12 / 1979e12)
    with pytest.raises(ValueError, match="already dense"):
        A.dense()


def test_roofline_rejects_wrong_types():
    with pytest.raises(ValueError, match="workload"):
        xc.roofline("not a workload", A)
    with pytest.raises(ValueError, match="device_b"):
        xc.crossover(A, 3)
