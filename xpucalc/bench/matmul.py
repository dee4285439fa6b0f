"""Dense matrix multiply throughput per precision: FLOP/s of C = A B, best and median.

F = 2 m k n FLOP per multiply (one multiply and one add per term), divided by
the time per call. Inputs are A ~ N(0, 1) [m, k] and B ~ N(0, 1/k) [k, n], so
every entry of C is about N(0, 1); after timing, two rows of C are checked
against float64 products of the same (rounded) inputs, so a multiply that
returns garbage fast is caught.

Precisions: ``"fp32"`` (TF32 off: ``fp32_precision = "ieee"``), ``"tf32"``
(FP32 storage, TF32 tensor cores), ``"bf16"``, ``"fp16"``, and FP8 twice (E4M3
inputs with unit scales through ``torch._scaled_mm``, BF16 output; CUDA
compute capability >= 8.9): ``"fp8"`` with the default precise accumulation
(``use_fast_accum=False``: on Hopper partial sums are moved to FP32 every few
steps, which reads about 50-60 % of the spec peak) and ``"fp8-fast"``
(``use_fast_accum=True``: the tensor cores' own accumulator throughout, what the
spec peak assumes). ``PRECISION_LABELS`` names each in Korean; the result's
``label`` and ``notes`` say which accumulation ran. What a device cannot do comes
back with ``status="unsupported"`` and a reason, never as an exception.
"""
from __future__ import annotations

import contextlib
import math
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .. import evidence
from .._check import positive, positive_int
from .environment import Environment
from .results import OK, UNSUPPORTED
from .settings import fp32_matmul_precision
from .target import TARGET_TIMED_S, Target, calibrate, cpu_threads, environment_of, resolve, time_kernel, wait_for
from .timing import Timing, check_count, summarize

PRECISIONS: tuple[str, ...] = ("fp32", "tf32", "bf16", "fp16", "fp8", "fp8-fast")
#: The FP8 precisions (``torch._scaled_mm``), and whether each uses fast accumulation (``use_fast_accum``).
FP8_FAST_ACCUM: dict[str, bool] = {"fp8": False, "fp8-fast": True}
#: Display names (Korean).
PRECISION_LABELS: dict[str, str] = {"fp32": "FP32", "tf32": "TF32", "bf16": "BF16", "fp16": "FP16",
                                    "fp8": "FP8 (정밀 누산)", "fp8-fast": "FP8 (빠른 누산)"}
#: What each FP8 accumulation means for the number read (Korean), recorded in the result's ``notes``.
FP8_NOTES: dict[str, str] = {
    "fp8": "정밀 누산(use_fast_accum=False): 부분합을 몇 단계마다 FP32로 옮겨 더하므로 정확하지만, Hopper(H100/H200)"
           "에서는 문서상 FP8 최대치(빠른 누산 기준)의 약 50–60 %만 나옵니다",
    "fp8-fast": "빠른 누산(use_fast_accum=True): 텐서 코어 안의 누산기로 끝까지 더해 문서상 FP8 최대치에 가깝게 "
                "나오지만, k가 크면 누산 오차가 커질 수 있습니다"}
#: Bytes per input element.
DTYPE_BYTES: dict[str, int] = {"fp32": 4, "tf32": 4, "bf16": 2, "fp16": 2, "fp8": 1, "fp8-fast": 1}
#: Max abs error on two rows of C (entries ~ N(0, 1)) against float64 of the rounded inputs.
#: fp32: sqrt(k) u |c| ~ 1e-5 at k = 8192; tf32 rounds inside the unit (u = 2^-11): ~ 2e-3 at the max;
#: bf16 / fp8 round the output to BF16 (2^-9 relative, |c| < 6): <= 0.012; fp16 output: <= 0.003.
TOLERANCE: dict[str, float] = {"fp32": 1e-3, "tf32": 2e-2, "bf16": 2.0**-4, "fp16": 1e-2, "fp8": 2.0**-4,
                               "fp8-fast": 2.0**-4}
#: One sample lasts at least this long, seconds.
MIN_SAMPLE_S = 2e-3


@dataclass(frozen=True)
class GemmResult:
    """One GEMM measurement.

    Attributes:
        m, k, n: A [m, k] x B [k, n].
        precision: one of ``PRECISIONS`` (``"fp8"``: precise accumulation; ``"fp8-fast"``: fast accumulation).
        status: ``"ok"`` or ``"unsupported"``; reason: why unsupported (Korean).
        timing: seconds per multiply (None when unsupported).
        threads: CPU threads PyTorch used (host threads on an accelerator; None for JAX).
        device, framework: where it ran.
        max_abs_err: largest error on the checked rows; tolerance: its limit.
        environment: the recorded environment. notes: remarks (Korean).
    """

    m: int
    k: int
    n: int
    precision: str
    status: str = OK
    reason: str = ""
    timing: Timing | None = None
    threads: int | None = None
    device: str = "cpu"
    framework: str = "torch"
    max_abs_err: float | None = None
    tolerance: float | None = None
    environment: Environment | None = None
    notes: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        return self.status == OK

    @property
    def flops(self) -> float:
        """2 m k n, FLOP per multiply."""
        return 2.0 * self.m * self.k * self.n

    @property
    def label(self) -> str:
        """The precision's display name (Korean), e.g. ``"FP8 (빠른 누산)"``."""
        return PRECISION_LABELS[self.precision]

    @property
    def fast_accum(self) -> bool | None:
        """``use_fast_accum`` of an FP8 multiply (None for the other precisions)."""
        return FP8_FAST_ACCUM.get(self.precision)

    @property
    def min_bytes(self) -> float:
        """Each of A, B and C moved once, bytes (C at the input width; BF16 output for fp8)."""
        s = DTYPE_BYTES[self.precision]
        out = 2 if self.precision in FP8_FAST_ACCUM else s
        return s * (self.m * self.k + self.k * self.n) + out * self.m * self.n

    @property
    def intensity(self) -> float:
        """flops / min_bytes, FLOP/byte."""
        return self.flops / self.min_bytes

    @property
    def median_s(self) -> float | None:
        return self.timing.median_s if self.timing else None

    @property
    def best_s(self) -> float | None:
        return self.timing.min_s if self.timing else None

    @property
    def flops_per_s(self) -> float | None:
        """FLOP / median time, FLOP/s (None when unsupported)."""
        return self.flops / self.timing.median_s if self.timing else None

    @property
    def best_flops_per_s(self) -> float | None:
        """FLOP / fastest call, FLOP/s."""
        return self.flops / self.timing.min_s if self.timing else None

    @property
    def accurate(self) -> bool:
        """The checked rows were within the tolerance."""
        return self.max_abs_err is not None and self.tolerance is not None and self.max_abs_err <= self.tolerance

    @property
    def evidence(self) -> str:
        if not self.ok:
            return evidence.NOT_MEASURED
        return evidence.CPU_CHECKED if self.device == "cpu" else evidence.MEASURED


def check_precision(precision: object) -> str:
    """``precision`` if it is one of ``PRECISIONS``, else ValueError naming them."""
    if precision not in PRECISIONS:
        raise ValueError(f"precision must be one of {', '.join(map(repr, PRECISIONS))}, got {precision!r}")
    return str(precision)


def catalog_precision(precision: str) -> str:
    """The spec catalog's precision for a ``PRECISIONS`` entry: both FP8 accumulations read the ``"fp8"`` peak."""
    return "fp8" if check_precision(precision) in FP8_FAST_ACCUM else precision


def unsupported_reason(target: Target, precision: str, capability: tuple[int, int] | None = None) -> str:
    """Why ``precision`` cannot run on ``target`` ("" when it can). ``capability``: CUDA compute capability."""
    if target.kind == "cpu":
        if precision == "tf32":
            return "CPU에는 TF32 모드가 없습니다(FP32 행렬 곱이 그대로 FP32로 계산됩니다)"
        if precision in FP8_FAST_ACCUM:
            return "PyTorch CPU에는 FP8 행렬 곱 단위가 없습니다"
    if target.kind == "mps" and (precision == "tf32" or precision in FP8_FAST_ACCUM):
        return f"MPS에서는 {PRECISION_LABELS.get(precision, precision)} 행렬 곱을 지원하지 않습니다"
    if target.framework == "jax" and (precision == "tf32" or precision in FP8_FAST_ACCUM):
        return f"이 하네스의 JAX 경로는 {PRECISION_LABELS.get(precision, precision)}를 재지 않습니다"
    if target.kind == "cuda" and capability is not None:
        if precision == "tf32" and capability < (8, 0):
            return f"compute capability {capability[0]}.{capability[1]}에는 TF32 텐서 코어가 없습니다"
        if precision in FP8_FAST_ACCUM and capability < (8, 9):
            return f"compute capability {capability[0]}.{capability[1]}에는 FP8 텐서 코어가 없습니다(8.9 이상 필요)"
    return ""


def default_size(device: str | Target = "auto") -> int:
    """Square size that saturates the device: 2048 on a CPU, 4096 on MPS, 8192 on a GPU or TPU."""
    target = device if isinstance(device, Target) else resolve(device)
    return {"cpu": 2048, "mps": 4096}.get(target.kind, 8192)


def _torch_operands(torch: Any, m: int, k: int, n: int, precision: str, dev: str, seed: int) -> tuple[Any, ...]:
    gen = torch.Generator(device=dev).manual_seed(seed)
    a = torch.randn(m, k, generator=gen, device=dev)
    b = torch.randn(k, n, generator=gen, device=dev) / math.sqrt(k)
    if precision in FP8_FAST_ACCUM:
        a8 = a.to(torch.float8_e4m3fn)
        b8 = b.t().contiguous().to(torch.float8_e4m3fn).t()  # column-major second operand, as _scaled_mm wants
        one = torch.ones((), device=dev)
        fast = FP8_FAST_ACCUM[precision]
        return a8, b8, lambda: torch._scaled_mm(a8, b8, one, one, out_dtype=torch.bfloat16, use_fast_accum=fast)
    dt = {"fp32": torch.float32, "tf32": torch.float32, "bf16": torch.bfloat16, "fp16": torch.float16}[precision]
    a, b = a.to(dt), b.to(dt)
    out = torch.empty(m, n, dtype=dt, device=dev)
    return a, b, lambda: torch.mm(a, b, out=out)


def _check_rows(a: Any, b: Any, c: Any, to_numpy: Any) -> float:
    """Max abs error of rows 0 and m-1 of ``c`` against float64 products of the same inputs."""
    import numpy as np

    rows = sorted({0, a.shape[0] - 1})
    a64 = np.stack([to_numpy(a[r]) for r in rows]).astype(np.float64)
    got = np.stack([to_numpy(c[r]) for r in rows]).astype(np.float64)
    want = a64 @ to_numpy(b).astype(np.float64)
    err = float(np.max(np.abs(got - want)))
    return math.inf if math.isnan(err) else err


def gemm(m: int, k: int, n: int, precision: str = "fp32", device: str = "auto", *, threads: int | None = None,
         reps: int | None = None, inner: int | None = None, seed: int = 0, warmup_s: float = 0.2,
         target_s: float = TARGET_TIMED_S, max_call_s: float | None = None) -> GemmResult:
    """Time C = A B: FLOP/s at ``precision`` on ``device``.

    Args:
        m, k, n: A [m, k], B [k, n] (whole numbers >= 1).
        precision: ``"fp32"`` (TF32 off), ``"tf32"``, ``"bf16"``, ``"fp16"``, ``"fp8"`` (precise accumulation)
            or ``"fp8-fast"`` (``use_fast_accum=True``).
        device: see ``xpucalc.bench.target.resolve`` (``"auto"``, ``"cpu"``, ``"cuda:N"``, ``"jax:tpu"`` ...).
        threads: PyTorch CPU threads (None: one; recorded in ``.threads``).
        reps: timed samples (None: about ``target_s`` seconds' worth, 5 to 200).
        inner: multiplies per sample (None: each sample lasts >= 2 ms).
        seed: input seed.
        warmup_s: warm-up time, seconds (cuBLAS heuristics, oneDNN kernels, clocks).
        target_s: timed seconds to aim for when ``reps`` is None.
        max_call_s: if set, seconds one multiply may take: a multiply 1/8 the size in each dimension is timed
            first, and when the full one would take longer (an emulated FP16 on a CPU takes about a minute at
            2048), the shape is shrunk to fit and a note says so; the result carries the shape measured.

    Returns:
        a ``GemmResult`` with ``.flops_per_s`` (median) and ``.best_flops_per_s`` (fastest call).
    """
    mm, kk, nn = positive_int(m, "m"), positive_int(k, "k"), positive_int(n, "n")
    prec = check_precision(precision)
    if reps is not None:
        check_count(reps, "reps", 1)
    if inner is not None:
        check_count(inner, "inner", 1)
    if max_call_s is not None:
        positive(max_call_s, "max_call_s")
    target = resolve(device)
    env = environment_of(target)
    cc = env.compute_capability if env is not None else None
    why = unsupported_reason(target, prec, cc)
    if why:
        return GemmResult(mm, kk, nn, prec, UNSUPPORTED, why, device=target.device, framework=target.framework,
                          environment=env)
    notes = tuple(env.caveats()) if env is not None and prec == "bf16" else ()
    if prec in FP8_NOTES:
        notes += (FP8_NOTES[prec],)
    try:
        with cpu_threads(target, threads) as used:
            if max_call_s is not None:
                shape = _fit_call_time(mm, kk, nn, prec, target, seed, max_call_s)
                if shape[:3] != (mm, kk, nn):
                    notes += (f"한 번에 약 {shape[3]:,.1f} s가 걸릴 것으로 보여 {mm}×{kk}×{nn} 대신 "
                              f"{shape[0]}×{shape[1]}×{shape[2]}로 쟀습니다(한 번 {max_call_s:g} s 이내).",)
                    mm, kk, nn = shape[:3]
            if target.framework == "jax":
                a, b, call, to_np = _jax_operands(mm, kk, nn, prec, target, seed)
                mode: Any = contextlib.nullcontext()
            else:
                import torch

                a, b, call = _torch_operands(torch, mm, kk, nn, prec, target.device, seed)
                to_np = lambda t: t.float().cpu().numpy()  # noqa: E731
                mode = fp32_matmul_precision(torch, prec)
            with mode:
                auto_inner, per_call = calibrate(call, target, MIN_SAMPLE_S, 1000)
                n_inner = auto_inner if inner is None else inner
                samples = time_kernel(call, target, reps, inner=n_inner, warmup_s=warmup_s, per_call_s=per_call,
                                      target_s=target_s)
                err = _check_rows(a, b, call(), to_np)
    except Exception as exc:  # noqa: BLE001 - e.g. a dtype this build lacks: report, do not crash
        return GemmResult(mm, kk, nn, prec, UNSUPPORTED, f"실행 실패: {type(exc).__name__}: {str(exc)[:120]}",
                          device=target.device, framework=target.framework, environment=env)
    return GemmResult(mm, kk, nn, prec, OK, "", summarize(samples, warn=False), used, target.device,
                      target.framework, err, TOLERANCE[prec], env, notes)


def _fit_call_time(m: int, k: int, n: int, precision: str, target: Target, seed: int,
                   max_call_s: float) -> tuple[int, int, int, float]:
    """(m, k, n, estimated seconds of one full multiply), each dimension shrunk alike (to multiples of 64, at
    least 64) when the estimate from one multiply 1/8 the size exceeds ``max_call_s`` seconds."""
    pm, pk, pn = max(1, m // 8), max(1, k // 8), max(1, n // 8)
    if target.framework == "jax":
        _, _, call, _ = _jax_operands(pm, pk, pn, precision, target, seed)
    else:
        import torch

        _, _, call = _torch_operands(torch, pm, pk, pn, precision, target.device, seed)
    wait = wait_for(target)
    wait(call())  # first call: library start-up, not the multiply
    t0 = time.perf_counter()
    wait(call())
    estimate = (time.perf_counter() - t0) * (m * k * n) / (pm * pk * pn)
    if estimate <= max_call_s:
        return m, k, n, estimate
    f = (max_call_s / estimate) ** (1 / 3)
    return (*(max(64, int(d * f) // 64 * 64) if d > 64 else d for d in (m, k, n)), estimate)


def _jax_operands(m: int, k: int, n: int, precision: str, target: Target, seed: int) -> tuple[Any, ...]:
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    d = jax.devices(target.device)[target.index]
    dt = {"fp32": jnp.float32, "bf16": jnp.bfloat16, "fp16": jnp.float16}[precision]
    rng = np.random.default_rng(seed)
    a = jax.device_put(rng.standard_normal((m, k), dtype=np.float32).astype(dt), d)
    b = jax.device_put((rng.standard_normal((k, n), dtype=np.float32) / math.sqrt(k)).astype(dt), d)
    prec = lax.Precision.HIGHEST if precision == "fp32" else lax.Precision.DEFAULT
    f = jax.jit(lambda x, y: jnp.dot(x, y, precision=prec, preferred_element_type=dt))
    return a, b, lambda: f(a, b), lambda t: np.asarray(t.astype(jnp.float32))


def gemm_sweep(sizes: Sequence[int], precision: str = "fp32", device: str = "auto", **kwargs: Any) -> list[GemmResult]:
    """Square GEMMs n x n x n for each n in ``sizes``; ``kwargs`` go to ``gemm``."""
    if not sizes:
        raise ValueError("sizes must hold at least one matrix size")
    return [gemm(s, s, s, precision, device, **kwargs) for s in sizes]


@dataclass(frozen=True)
class GemmComparison:
    """``gemm`` and ``torch.utils.benchmark`` timing ``torch.mm`` of the same shapes, alternated in rounds.

    Attributes:
        ours: seconds per multiply from ``gemm``, all rounds together.
        torch_benchmark: ``blocked_autorange`` medians, one per round, seconds.
        flops: 2 m k n. threads: CPU threads both used.
    """

    ours: Timing
    torch_benchmark: Timing
    flops: float
    threads: int

    @property
    def ratio(self) -> float:
        """Our FLOP/s / torch.utils.benchmark's FLOP/s (medians)."""
        return self.torch_benchmark.median_s / self.ours.median_s


def compare_with_torch_benchmark(m: int, k: int, n: int, precision: str = "fp32", *, threads: int | None = None,
                                 rounds: int = 3, min_run_time_s: float = 0.3) -> GemmComparison:
    """Time the same CPU GEMM with ``gemm`` and ``torch.utils.benchmark.Timer``, alternately, ``rounds`` times."""
    import torch
    import torch.utils.benchmark as tb

    rounds = check_count(rounds, "rounds", 1)
    prec = check_precision(precision)
    if prec == "tf32" or prec in FP8_FAST_ACCUM:
        raise ValueError(f"precision {prec!r} does not run on a CPU; use 'fp32', 'bf16' or 'fp16'")
    target = Target("torch", "cpu", "cpu")
    ours: list[float] = []
    theirs: list[float] = []
    with cpu_threads(target, threads) as used:
        a, b, _ = _torch_operands(torch, m, k, n, prec, "cpu", 0)
        timer = tb.Timer("torch.mm(a, b)", globals={"torch": torch, "a": a, "b": b}, num_threads=int(used or 1))
        for _ in range(rounds):
            r = gemm(m, k, n, prec, "cpu", threads=used, reps=None, warmup_s=0.05, target_s=0.5)
            ours.extend(r.timing.samples_s if r.timing else ())
            theirs.append(timer.blocked_autorange(min_run_time=min_run_time_s).median)
    return GemmComparison(summarize(ours, warn=False), summarize(theirs, warn=False), 2.0 * m * k * n, int(used or 1))


__all__ = ["DTYPE_BYTES", "FP8_FAST_ACCUM", "FP8_NOTES", "GemmComparison", "GemmResult", "PRECISIONS",
           "PRECISION_LABELS", "TOLERANCE", "catalog_precision", "check_precision",
           "compare_with_torch_benchmark", "default_size", "gemm", "gemm_sweep",
           "unsupported_reason"]
