"""The public names of issue 19 §2, each called once from the package on a case worked by hand."""
import pytest

import xpucalc as xc


def test_public_api_of_the_design_is_reachable_from_the_package():
    import sys

    # each design name called once on a case worked by hand
    assert xc.linear_layer(128, 1024, 1024, 2).flops == 268_435_456       # 2 x 128 x 1024 x 1024
    assert xc.roofline(xc.Workload("w", 1e12, 100e9), xc.Device("A", 200e12, 1e12)).time == pytest.approx(0.1)
    assert xc.ridge_point(xc.Device("A", 200e12, 1e12)) == pytest.approx(200)
    assert xc.crossover(xc.Device("A", 200e12, 1e12), xc.Device("B", 100e12, 2e12)) == pytest.approx(100)
    assert xc.breakeven_runs(30, 0.015, 5, 0.020) == 5001                 # 25 s / 5 ms = 5,000 -> 5,001
    assert xc.energy_per_request(400, 100) == pytest.approx(4.0)
    assert xc.devices.get("virtual-a").peak_flops == 200e12 and "virtual-b" in xc.devices.keys()
    assert (xc.units.GB, xc.units.TB, xc.units.GiB, xc.units.TiB, xc.units.TFLOPS) == (1e9, 1e12, 2**30, 2**40, 1e12)
    # Llama-3-70B KV cache at 8,192 tokens, FP16: 2 x 80 x 8,192 x 8 x 128 x 2 B = 2,684,354,560 B (design §7.3)
    assert xc.llm.kv_cache_bytes(80, 8, 128, 8192) == 2_684_354_560
    assert xc.llm.decode_tokens_per_s_bound(140e9, 3.35e12) == pytest.approx(23.93, abs=0.01)  # 3.35e12 / 140e9
    # 6 x 70e9 x 15e12 = 6.3e24 FLOP / (16,000 x 989e12 x 0.4) = 995,323 s = 11.52 days (design §7.2)
    assert xc.llm.train_time_s(70e9, 15e12, 16000, 989e12, 0.4) / 86400 == pytest.approx(11.52, abs=0.01)
    assert xc.llm.allreduce_time_s(14e9, 32e9, 8) == pytest.approx(0.765625)  # 2 x 7/8 x 14 / 32 (design §7.5)
    for n in ("run_torch", "run_jax"):  # the harness needs a framework to call: its own tests run it
        assert callable(getattr(xc.bench, n)), f"xpucalc.bench.{n}"
    # importing the package must not pull in the frameworks (the harness imports them only when it runs)
    import subprocess

    probe = "import sys, xpucalc; print('torch' in sys.modules, 'jax' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["False", "False"]
