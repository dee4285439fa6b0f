"""The grid's vocabulary: one :class:`Condition` (a cell of the grid) and the :class:`Options` it is measured with.

A condition is what the source's tables vary: framework, execution path, precision and the shape of
Y = ReLU(XW + b). The options are how a runner measures it (repetitions, warm-up, tolerance, ...).
Both check their values once, when they are made, so a runner never sees a bad one.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .._check import check_bool, non_negative, positive, positive_int, whole
from ..core.workload import LinearLayer, linear_layer
from .environment import Environment, default_reps
from .timing import NOISY_THRESHOLD, WARMUP_MIN_S, check_count

#: Frameworks with a runner: PyTorch (``run_torch``) and JAX (``run_jax``).
FRAMEWORKS: tuple[str, ...] = ("torch", "jax")
#: Execution paths: the framework's default (eager) and its compiler (torch.compile / jax.jit).
PATHS: tuple[str, ...] = ("eager", "compiled")
#: Precisions: FP32 (TF32 off: matmul precision "ieee" / Precision.HIGHEST) and BF16.
PRECISIONS: tuple[str, ...] = ("fp32", "bf16")
#: Bytes per element of each precision.
DTYPE_BYTES: dict[str, int] = {"fp32": 4, "bf16": 2}
#: Calls per back-to-back group and per CUDA graph on an accelerator.
GPU_BATCH = 50

#: Display names of the paths per framework.
PATH_LABELS: dict[tuple[str, str], str] = {
    ("torch", "eager"): "PyTorch Eager",
    ("torch", "compiled"): "torch.compile",
    ("jax", "eager"): "JAX Eager",
    ("jax", "compiled"): "jax.jit (XLA)",
}


def check_choice(value: object, name: str, choices: Sequence[str]) -> str:
    """``value`` if it is one of ``choices``, else ValueError naming ``name`` and the choices."""
    if value not in choices:
        raise ValueError(f"{name} must be one of {', '.join(map(repr, choices))}, got {value!r}")
    return str(value)


@dataclass(frozen=True)
class Condition:
    """One cell of the grid: Y = ReLU(XW + b) with X [m, k] and W [k, n].

    Attributes:
        framework: ``"torch"`` or ``"jax"``.
        path: ``"eager"`` or ``"compiled"``.
        precision: ``"fp32"`` or ``"bf16"``.
        m, k, n: the shapes (whole numbers >= 1; stored as int).
    """

    framework: str
    path: str
    precision: str
    m: int
    k: int = 1024
    n: int = 1024

    def __post_init__(self) -> None:
        check_choice(self.framework, "framework", FRAMEWORKS)
        check_choice(self.path, "path", PATHS)
        check_choice(self.precision, "precision", PRECISIONS)
        for name in ("m", "k", "n"):
            object.__setattr__(self, name, positive_int(getattr(self, name), name))

    def key(self) -> tuple[str, str, int]:
        """(path, precision, m): how results line up with each other and with reference runs."""
        return (self.path, self.precision, self.m)

    @property
    def workload(self) -> LinearLayer:
        """The analytic workload (F = 2mkn, Q_min, I) at this precision."""
        return linear_layer(self.m, self.k, self.n, DTYPE_BYTES[self.precision])

    @property
    def path_label(self) -> str:
        """Display name of the path, e.g. ``"torch.compile"``."""
        return PATH_LABELS[(self.framework, self.path)]

    @property
    def label(self) -> str:
        """What a timing warning names, e.g. ``"torch eager bf16 M=128"``."""
        return f"{self.framework} {self.path} {self.precision} M={self.m}"


@dataclass(frozen=True)
class Options:
    """How a runner measures a condition (the runners' keyword arguments, checked once).

    Attributes:
        warmup, reps: untimed (>= 0) and timed (>= 1) repetitions per boundary; None picks
            :func:`~xpucalc.bench.default_reps` of the environment (see :meth:`counts`).
        seed: input seed (:func:`~xpucalc.bench.make_inputs`).
        tolerance: max-abs-error tolerance; None uses the precision's default.
        noisy_threshold: IQR/median ratio above which a timing is flagged noisy (> 0).
        rounds: interleaved rounds on a CPU (None: as many as ``reps``, one call of each boundary per round).
        warmup_s: least time-based warm-up per boundary, seconds.
        cold_compile: also time the first call in a fresh process with empty compile caches (compiled path).
        batch: calls per back-to-back group and per CUDA graph on an accelerator.
    """

    warmup: int | None = None
    reps: int | None = None
    seed: int = 0
    tolerance: float | None = None
    noisy_threshold: float = NOISY_THRESHOLD
    rounds: int | None = None
    warmup_s: float = WARMUP_MIN_S
    cold_compile: bool = False
    batch: int = GPU_BATCH

    def __post_init__(self) -> None:
        if self.warmup is not None:
            check_count(self.warmup, "warmup", 0)
        if self.reps is not None:
            check_count(self.reps, "reps", 1)
        positive(self.noisy_threshold, "noisy_threshold")
        if self.rounds is not None:
            check_count(self.rounds, "rounds", 1)
        if self.tolerance is not None:
            non_negative(self.tolerance, "tolerance")
        non_negative(self.warmup_s, "warmup_s")
        check_bool(self.cold_compile, "cold_compile")
        check_count(self.batch, "batch", 1)
        whole(self.seed, "seed", 0)

    def counts(self, env: Environment | None) -> tuple[int, int]:
        """(warmup, reps) in force on ``env``: the ones given, else the environment's defaults."""
        warmup, reps = default_reps(env)
        return (warmup if self.warmup is None else self.warmup, reps if self.reps is None else self.reps)


__all__ = ["Condition", "DTYPE_BYTES", "FRAMEWORKS", "GPU_BATCH", "Options", "PATHS", "PATH_LABELS", "PRECISIONS",
           "check_choice"]
