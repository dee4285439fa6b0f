"""Where a micro-benchmark runs and how its calls are timed: device, CPU threads, cache sizes.

Shared by ``xpucalc.bench.bandwidth``, ``xpucalc.bench.matmul`` and
``xpucalc.bench.sweep``. A ``Target`` names the framework (PyTorch,
or JAX for a TPU) and the device; ``time_kernel`` times calls on it with
the right wait (none for PyTorch on a CPU, CUDA events for a GPU,
``block_until_ready`` for JAX), after a warm-up by time, and returns seconds
per call. ``cache_sizes`` reads the CPU caches from sysfs (``lscpu`` as a
fallback), so that array sizes can be chosen *past* the last-level cache.

torch and jax are imported only inside the functions that use them.
"""
from __future__ import annotations

import contextlib
import os
import re
import subprocess
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .environment import Environment, jax_environment, torch_environment
from .settings import DEFAULT_CPU_THREADS, torch_threads
from .timing import batched, calls_to_fill, check_count, time_batches, time_calls, warm_up

#: Seconds of timed calls a benchmark aims for when ``reps`` is None (bounds: ``timing.MIN_REPS``, ``MAX_REPS``).
TARGET_TIMED_S = 1.0
#: Last-level cache assumed when neither sysfs nor lscpu tells (bytes).
FALLBACK_LLC_BYTES = 32 * 2**20

_SIZE_RE = re.compile(r"^\s*([0-9.]+)\s*([KMGT]?)(i?B?)?\s*$", re.IGNORECASE)
_MULT = {"": 1, "K": 2**10, "M": 2**20, "G": 2**30, "T": 2**40}


@dataclass(frozen=True)
class Target:
    """Where a benchmark runs.

    Attributes:
        framework: ``"torch"`` or ``"jax"``.
        kind: ``"cpu"``, ``"cuda"``, ``"mps"``, ``"tpu"`` or ``"gpu"`` (a JAX GPU).
        device: torch device string (``"cpu"``, ``"cuda:0"``) or the JAX platform (``"tpu"``).
        index: device index (CUDA / JAX), 0 on a CPU.
    """

    framework: str
    kind: str
    device: str
    index: int = 0

    @property
    def accelerator(self) -> bool:
        return self.kind != "cpu"


def _tpu_present() -> bool:
    return any(os.environ.get(v) for v in ("TPU_NAME", "COLAB_TPU_ADDR", "TPU_ACCELERATOR_TYPE")) or \
        os.path.exists("/dev/accel0") or os.path.exists("/dev/vfio/0")


def resolve(device: str = "auto") -> Target:
    """The ``Target`` of ``device``.

    Args:
        device: ``"auto"`` (a CUDA GPU, else a TPU through JAX, else the CPU through PyTorch),
            ``"cpu"``, ``"cuda"``, ``"cuda:N"``, ``"mps"``, or ``"jax"`` / ``"jax:tpu"`` /
            ``"jax:gpu"`` / ``"jax:cpu"`` (JAX's default backend or the named platform).

    Raises:
        ValueError: ``device`` is not one of those forms.
        RuntimeError: the device is not available here.
    """
    if not isinstance(device, str) or not device:
        raise ValueError(f"device must be a string such as 'auto', 'cpu', 'cuda:0' or 'jax:tpu', got {device!r}")
    if device == "auto":
        import torch

        if torch.cuda.is_available():
            return resolve("cuda")
        if _tpu_present():
            try:
                return resolve("jax:tpu")
            except (RuntimeError, ImportError):
                pass
        return Target("torch", "cpu", "cpu")
    if device == "jax" or device.startswith("jax:"):
        platform = device.partition(":")[2] or None
        if platform not in (None, "cpu", "gpu", "tpu"):
            raise ValueError(f"device {device!r}: the JAX platform must be 'cpu', 'gpu' or 'tpu'")
        import jax

        try:
            d = (jax.devices(platform) if platform else jax.devices())[0]
        except RuntimeError as exc:
            raise RuntimeError(f"JAX에서 {platform!r} 장치를 찾지 못했습니다: {exc}") from None
        kind = d.platform.lower()
        kind = "gpu" if kind in ("cuda", "rocm") else kind
        return Target("jax", kind, d.platform, int(getattr(d, "id", 0)))
    kind, _, idx = device.partition(":")
    if kind not in ("cpu", "cuda", "mps") or (idx and not idx.isdigit()) or (idx and kind != "cuda"):
        raise ValueError(f"device must be 'auto', 'cpu', 'cuda', 'cuda:N', 'mps' or 'jax[:platform]', got {device!r}")
    import torch

    if kind == "cuda":
        if not torch.cuda.is_available():
            raise RuntimeError("CUDA 장치가 없습니다 (torch.cuda.is_available() == False)")
        index = int(idx) if idx else torch.cuda.current_device()
        if index >= torch.cuda.device_count():
            raise RuntimeError(f"cuda:{index}가 없습니다: 이 머신의 CUDA 장치는 {torch.cuda.device_count()}개입니다")
        return Target("torch", "cuda", f"cuda:{index}", index)
    if kind == "mps":
        mps = getattr(torch.backends, "mps", None)
        if mps is None or not mps.is_available():
            raise RuntimeError("MPS 장치가 없습니다")
        return Target("torch", "mps", "mps")
    return Target("torch", "cpu", "cpu")


def environment_of(target: Target) -> Environment | None:
    """The recorded environment of ``target`` (None if it cannot be read; the measurement does not depend on it)."""
    try:
        if target.framework == "jax":
            return jax_environment(target.device)
        return torch_environment(target.device)
    except Exception:  # noqa: BLE001
        return None


@contextlib.contextmanager
def cpu_threads(target: Target, threads: int | None) -> Iterator[int | None]:
    """Set PyTorch's intra-op threads for the block and restore them after; yields the count used.

    On a CPU, ``threads=None`` means ``DEFAULT_CPU_THREADS``. On an accelerator the host
    threads are left as they are and their count is yielded. JAX cannot change its thread
    pool at run time: yields None (unknown) and refuses an explicit count.
    """
    if threads is not None:
        threads = check_count(threads, "threads", 1)
    if target.framework == "jax":
        if threads is not None:
            raise ValueError("threads cannot be set for a JAX device (XLA sizes its thread pool at start-up); "
                             "pass threads=None")
        yield None
        return
    import torch

    if target.kind != "cpu":
        yield torch.get_num_threads()
        return
    with torch_threads(torch, DEFAULT_CPU_THREADS if threads is None else threads) as used:
        yield used


def sync_for(target: Target) -> Callable[[Any], Any] | None:
    """The wait that ends a timed call: None (synchronous PyTorch CPU), MPS synchronize, or JAX block."""
    if target.framework == "jax":
        return lambda out: out.block_until_ready()
    if target.kind == "mps":
        import torch

        return lambda out: torch.mps.synchronize()
    return None


def wait_for(target: Target) -> Callable[[Any], Any]:
    """A call that waits until the work behind an output is done (also for CUDA, unlike ``sync_for``)."""
    if target.kind == "cuda" and target.framework == "torch":
        import torch

        return lambda out: torch.cuda.synchronize(target.index)
    sync = sync_for(target)
    return sync if sync is not None else (lambda out: out)


def calibrate(call: Callable[[], Any], target: Target, min_sample_s: float = 1e-3,
              limit: int = 10_000) -> tuple[int, float]:
    """(calls per sample, seconds per call): two waited calls, the second timed.

    Calls per sample make one sample last at least ``min_sample_s`` (at most ``limit``); the
    seconds per call can go to ``time_kernel`` as ``per_call_s``.
    """
    dt = max(time_calls(call, 1, 1, sync=wait_for(target))[0], 1e-9)
    return calls_to_fill(dt, min_sample_s, 1, limit), dt


def inner_for(call: Callable[[], Any], target: Target, min_sample_s: float = 1e-3, limit: int = 10_000) -> int:
    """Calls per timed sample so that one sample lasts at least ``min_sample_s`` (see ``calibrate``)."""
    return calibrate(call, target, min_sample_s, limit)[0]


#: A call at least this long (seconds) is warm after the two calls of ``calibrate``.
LONG_CALL_S = 0.05


def time_kernel(fn: Callable[[], Any], target: Target, reps: int | None = None, *, inner: int = 1,
                warmup_s: float = 0.1, per_call_s: float | None = None, target_s: float = TARGET_TIMED_S,
                cuda: Any = None) -> list[float]:
    """Seconds per call of ``fn`` on ``target``: a warm-up by time, then ``reps`` samples.

    Each sample covers ``inner`` calls issued back to back (one wait at the end)
    and is divided by ``inner``, so a short kernel is not drowned by the clock
    and the wait. On CUDA the samples are CUDA-event times of the group
    (``xpucalc.bench.cuda_timing.back_to_back``); elsewhere a
    ``perf_counter`` interval that ends after the wait of ``sync_for``
    (``xpucalc.bench.timing.time_batches``).

    Args:
        fn: one call of the kernel, no arguments.
        target: from ``resolve``.
        reps: samples (>= 1); None: enough for about ``target_s`` seconds (``timing.calls_to_fill``).
        inner: calls per sample (>= 1).
        warmup_s: warm up for at least this long, seconds (and until two windows agree).
        per_call_s: seconds per call measured just before (``calibrate``): used for ``reps=None``,
            and a group of at least ``LONG_CALL_S`` skips the warm-up (those calls warmed it).
        target_s: timed seconds to aim for when ``reps`` is None.
        cuda: the CUDA module (``torch.cuda`` when None); tests pass a fake.
    """
    inner = check_count(inner, "inner", 1)
    if reps is not None:
        reps = check_count(reps, "reps", 1)
    sync = sync_for(target)
    long_call = per_call_s is not None and per_call_s * inner >= LONG_CALL_S
    group = batched(fn, inner)

    if target.kind == "cuda" and target.framework == "torch":
        from . import cuda_timing

        if cuda is None:
            import torch

            cuda = torch.cuda

        def synced() -> None:
            group()
            cuda.synchronize(target.index)

        if not long_call:
            warm_up(synced, min_time_s=warmup_s, max_time_s=max(1.0, 4 * warmup_s), window=3)
        if reps is None:
            probe = per_call_s if per_call_s is not None else \
                cuda_timing.back_to_back(fn, 1, inner, device=target.index, cuda=cuda)[0]
            reps = calls_to_fill(probe * inner, target_s)
        return cuda_timing.back_to_back(fn, reps, inner, device=target.index, cuda=cuda)
    if not long_call:
        warm_up(group, sync, min_time_s=warmup_s, max_time_s=max(1.0, 4 * warmup_s), window=3)
    if reps is None:
        probe = per_call_s * inner if per_call_s is not None else time_calls(group, 0, 1, sync=sync)[0]
        reps = calls_to_fill(probe, target_s)
    return time_batches(fn, reps, inner, sync=sync)


#: Whole device names as the runtime reports them (``torch.cuda.get_device_name()``, JAX's ``device_kind``),
#: as regular expressions matched against the *whole* lower-case name with runs of blanks made one space,
#: -> spec-catalog key. A variant that is not listed (H100 NVL, GH200, H200 NVL, A100 PCIe, a MIG slice,
#: TPU v5p / v6e, a laptop GPU) has no entry: its clocks, power or memory differ from the listed card's.
CATALOG_NAMES: tuple[tuple[str, str], ...] = (
    (r"nvidia h100 80gb hbm3", "h100-sxm"), (r"nvidia h100 pcie", "h100-pcie"), (r"nvidia h200", "h200"),
    (r"nvidia b200", "b200"),
    (r"nvidia a100-sxm4-80gb", "a100-80gb"), (r"nvidia a100-sxm4-40gb", "a100-sxm4-40gb"),
    (r"nvidia l40s", "l40s"), (r"nvidia rtx 6000 ada generation", "rtx-6000-ada"),
    (r"nvidia geforce rtx 4090", "rtx-4090"), (r"nvidia geforce rtx 5090", "rtx-5090"),
    (r"amd instinct mi300x( vf)?", "mi300x"),
    (r"tpu v5 ?lite", "tpu-v5e"), (r"tpu v5e", "tpu-v5e"),
)
_CATALOG_RES = tuple((re.compile(pattern), key) for pattern, key in CATALOG_NAMES)


def catalog_key(name: str) -> str | None:
    """The spec-catalog key (``xpucalc.devices``) of a device name as the runtime reports it, or None.

    The whole name must be a known one (see ``CATALOG_NAMES``), not merely contain it:
    ``"NVIDIA H100 80GB HBM3"`` -> ``"h100-sxm"``, ``"TPU v5 lite"`` -> ``"tpu-v5e"``; ``"NVIDIA H100 NVL"``,
    ``"NVIDIA GH200 480GB"``, a T4 or a CPU -> None (no catalog entry for that card).
    """
    low = " ".join(str(name).lower().split())
    for pattern, key in _CATALOG_RES:
        if pattern.fullmatch(low):
            return key
    return None


# --------------------------------------------------------------------------- cache sizes

def parse_size(text: str) -> int:
    """``"48K"``, ``"2048K"``, ``"300 MiB"``, ``"1.5M"`` -> bytes (binary multiples, as sysfs and lscpu mean them)."""
    m = _SIZE_RE.match(text)
    if not m:
        raise ValueError(f"cannot read a cache size from {text!r}")
    return int(float(m.group(1)) * _MULT[m.group(2).upper()])


@dataclass(frozen=True)
class CacheLevel:
    """One level of CPU cache: ``size_bytes`` per instance, ``instances`` of it, ``total_bytes`` = size x instances."""

    level: int
    size_bytes: int
    instances: int

    @property
    def total_bytes(self) -> int:
        return self.size_bytes * self.instances


def cache_sizes(sysfs: str | os.PathLike[str] = "/sys/devices/system/cpu") -> dict[int, CacheLevel]:
    """Data/unified CPU caches by level, read from ``sysfs`` (``lscpu`` when that is missing).

    An instance is one distinct ``shared_cpu_list`` of that level; so a 300 MiB L3
    shared by all cores counts once and two private 2 MiB L2s count twice.
    Returns {} when nothing can be read.
    """
    root = Path(sysfs)
    seen: dict[int, dict[str, int]] = {}
    for idx in sorted(root.glob("cpu[0-9]*/cache/index[0-9]*")):
        try:
            kind = (idx / "type").read_text().strip()
            if kind == "Instruction":
                continue
            level = int((idx / "level").read_text())
            size = parse_size((idx / "size").read_text().strip())
            shared = (idx / "shared_cpu_list").read_text().strip()
        except (OSError, ValueError):
            continue
        seen.setdefault(level, {})[shared] = size
    if seen:
        out = {}
        for level, by_shared in seen.items():
            sizes = list(by_shared.values())
            out[level] = CacheLevel(level, max(sizes), len(sizes))
        return out
    return _lscpu_caches()


def _lscpu_caches() -> dict[int, CacheLevel]:
    try:
        text = subprocess.run(["lscpu"], capture_output=True, text=True, timeout=10, check=True).stdout
    except (OSError, subprocess.SubprocessError):
        return {}
    out = {}
    for m in re.finditer(r"^L([1-4])d? cache:\s*([0-9.]+ ?[KMG]i?B)(?: \((\d+) instances?\))?", text, re.M):
        level = int(m.group(1))
        total = parse_size(m.group(2))
        inst = int(m.group(3) or 1)
        out[level] = CacheLevel(level, total // inst, inst)
    return out


def llc_bytes(sysfs: str | os.PathLike[str] = "/sys/devices/system/cpu") -> int:
    """All last-level cache of the CPU together (every instance), bytes; ``FALLBACK_LLC_BYTES`` if unknown.

    STREAM's rule asks each array to be at least four times this.
    """
    caches = cache_sizes(sysfs)
    if not caches:
        return FALLBACK_LLC_BYTES
    return caches[max(caches)].total_bytes


__all__ = ["CATALOG_NAMES", "CacheLevel", "FALLBACK_LLC_BYTES", "LONG_CALL_S", "TARGET_TIMED_S", "Target", "cache_sizes",
           "calibrate", "catalog_key", "cpu_threads", "environment_of", "inner_for", "llc_bytes", "parse_size", "resolve",
           "sync_for", "time_kernel", "wait_for"]
