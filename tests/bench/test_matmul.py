"""xpucalc.bench.matmul: GEMM FLOP counting, the answer check that catches a wrong product, what cannot run."""
from __future__ import annotations

import pytest

from xpucalc import bench
from xpucalc.bench import matmul, target

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("args, word", [((0, 8, 8, "fp32"), "m"), ((8, 8.5, 8, "fp32"), "k"),
                                        ((8, 8, -1, "fp32"), "n"), ((8, 8, 8, "int4"), "precision")])
def test_gemm_bad_input_names_the_argument(args, word):
    with pytest.raises(ValueError, match=word):
        bench.gemm(*args, device="cpu")


def test_gemm_counts_flops_and_checks_the_answer():
    r = bench.gemm(64, 96, 80, "fp32", "cpu", reps=3, warmup_s=0.01)
    assert r.ok and r.threads == 1 and r.accurate
    assert r.flops == 2 * 64 * 96 * 80                 # 983,040 FLOP
    assert r.flops_per_s == pytest.approx(r.flops / r.median_s)
    assert r.best_flops_per_s >= r.flops_per_s
    # fp32 bytes: 4 (64*96 + 96*80 + 64*80) = 4 (6,144 + 7,680 + 5,120) = 4 * 18,944 = 75,776
    assert r.min_bytes == 75_776 and r.intensity == pytest.approx(983_040 / 75_776)


def test_gemm_catches_a_wrong_product(monkeypatch):
    real = matmul._torch_operands

    def wrong(torch_, m, k, n, precision, dev, seed):
        a, b, call = real(torch_, m, k, n, precision, dev, seed)
        return a, b, lambda: torch_.zeros(m, n)

    monkeypatch.setattr(matmul, "_torch_operands", wrong)
    assert not bench.gemm(32, 32, 32, "fp32", "cpu", reps=2, warmup_s=0.01).accurate


@pytest.mark.parametrize("kind, prec, cc, unsupported", [
    ("cpu", "tf32", None, True), ("cpu", "fp8", None, True), ("cpu", "bf16", None, False),
    ("cuda", "tf32", (7, 5), True), ("cuda", "fp8", (8, 0), True), ("cuda", "fp8", (8, 9), False),
    ("cuda", "bf16", (7, 5), False), ("cuda", "fp8", (9, 0), False)])
def test_unsupported_reason(kind, prec, cc, unsupported):
    t = target.Target("torch", kind, "cuda:0" if kind == "cuda" else "cpu")
    assert bool(matmul.unsupported_reason(t, prec, cc)) is unsupported


def test_gemm_unsupported_is_a_result_not_a_crash():
    r = bench.gemm(16, 16, 16, "tf32", "cpu")
    assert not r.ok and "TF32" in r.reason and r.flops_per_s is None and r.evidence == "아직 미측정"


def test_gemm_tf32_mode_is_restored(monkeypatch):
    # the precision is set for the timed calls only (xpucalc.bench.settings.fp32_matmul_precision)
    before = torch.backends.cuda.matmul.fp32_precision
    seen = []
    real = matmul._torch_operands

    def spy(torch_, m, k, n, precision, dev, seed):
        a, b, call = real(torch_, m, k, n, precision, dev, seed)
        return a, b, lambda: (seen.append(torch_.backends.cuda.matmul.fp32_precision), call())[1]

    monkeypatch.setattr(matmul, "_torch_operands", spy)
    assert bench.gemm(16, 16, 16, "fp32", "cpu", reps=1, inner=1, warmup_s=0.01).accurate
    assert set(seen) == {"ieee"} and torch.backends.cuda.matmul.fp32_precision == before


def test_gemm_on_jax():
    pytest.importorskip("jax")
    g = bench.gemm(16, 24, 8, "fp32", "jax:cpu", reps=2, warmup_s=0.01)
    assert g.ok and g.accurate and g.framework == "jax" and g.flops == 2 * 16 * 24 * 8
    assert not bench.gemm(16, 16, 16, "fp8", "jax:cpu").ok


def _fake_scaled_mm(seen):
    """A stand-in for ``torch._scaled_mm`` with its signature (scales as float32 scalars, keyword-only accumulation
    flag, default ``use_fast_accum=False``) that records the flag and returns the BF16 product."""
    def scaled_mm(a, b, scale_a, scale_b, bias=None, scale_result=None, out_dtype=None, use_fast_accum=False):
        assert a.dtype == torch.float8_e4m3fn and b.dtype == torch.float8_e4m3fn
        assert scale_a.dtype == torch.float32 and scale_a.numel() == 1 and b.stride(0) == 1   # B column-major
        seen.append(use_fast_accum)
        return (a.float() @ b.float() * scale_a * scale_b).to(out_dtype)

    return scaled_mm


@pytest.mark.parametrize("precision, fast", [("fp8", False), ("fp8-fast", True)])
def test_fp8_runs_with_and_without_fast_accumulation(monkeypatch, precision, fast):
    seen = []
    monkeypatch.setattr(torch, "_scaled_mm", _fake_scaled_mm(seen))
    a, b, call = matmul._torch_operands(torch, 16, 32, 8, precision, "cpu", 0)
    assert call().dtype == torch.bfloat16 and seen == [fast]


def test_fp8_results_are_labelled_by_accumulation(monkeypatch):
    # the CPU path with the device check and _scaled_mm faked, so both FP8 results go through gemm() end to end
    seen = []
    monkeypatch.setattr(torch, "_scaled_mm", _fake_scaled_mm(seen))
    monkeypatch.setattr(matmul, "unsupported_reason", lambda *a, **k: "")
    slow = bench.gemm(16, 32, 16, "fp8", "cpu", reps=1, inner=1, warmup_s=0.0)
    fast = bench.gemm(16, 32, 16, "fp8-fast", "cpu", reps=1, inner=1, warmup_s=0.0)
    assert slow.ok and fast.ok and slow.accurate and fast.accurate
    assert set(seen) == {False, True} and seen.count(True) and seen.count(False)
    assert (slow.fast_accum, fast.fast_accum) == (False, True)
    assert slow.label == "FP8 (정밀 누산)" and fast.label == "FP8 (빠른 누산)"
    assert any("use_fast_accum=False" in n for n in slow.notes) and any("use_fast_accum=True" in n for n in fast.notes)
    assert slow.min_bytes == fast.min_bytes == 16 * 32 + 32 * 16 + 2 * 16 * 16   # FP8 inputs, BF16 output


def test_fp8_precisions_are_in_the_list_and_read_the_fp8_peak():
    assert {"fp8", "fp8-fast"} <= set(matmul.PRECISIONS) and set(matmul.PRECISION_LABELS) == set(matmul.PRECISIONS)
    assert matmul.catalog_precision("fp8-fast") == matmul.catalog_precision("fp8") == "fp8"
    assert matmul.catalog_precision("bf16") == "bf16" and bench.gemm(8, 8, 8, "fp32", "cpu", reps=1).fast_accum is None
    t = target.Target("torch", "cuda", "cuda:0")
    assert matmul.unsupported_reason(t, "fp8-fast", (8, 0)) and not matmul.unsupported_reason(t, "fp8-fast", (9, 0))
    assert not bench.gemm(8, 8, 8, "fp8-fast", "cpu").ok


def test_max_call_s_shrinks_a_slow_multiply_and_says_so():
    """A multiply that would take longer than max_call_s is measured at a smaller shape, with a note."""
    g = matmul.gemm(1024, 512, 256, "fp32", "cpu", target_s=0.01, warmup_s=0.0, max_call_s=1e-9)
    assert g.ok and (g.m, g.k, g.n) == (64, 64, 64)          # shrunk alike, floored at 64
    assert any("1024×512×256 대신 64×64×64" in note for note in g.notes)
    assert g.flops == 2 * 64 * 64 * 64                       # the rate is of the shape measured


def test_max_call_s_leaves_a_fast_multiply_alone():
    g = matmul.gemm(128, 128, 128, "fp32", "cpu", target_s=0.01, warmup_s=0.0, max_call_s=60.0)
    assert (g.m, g.k, g.n) == (128, 128, 128) and not g.notes
    with pytest.raises(ValueError, match="max_call_s"):
        matmul.gemm(128, 128, 128, "fp32", "cpu", max_call_s=0.0)
