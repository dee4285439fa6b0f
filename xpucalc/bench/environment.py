"""Where a run happened: device, runtime, versions, clocks, caches -- and the evidence label that follows."""
from __future__ import annotations

import datetime as _dt
import os
import platform as _platform
from dataclasses import dataclass, field

from .. import evidence
from ..units import GB, GiB

#: The source's repetition counts, used on accelerators.
DEFAULT_WARMUP = 50
DEFAULT_REPS = 500
#: Light counts for a CPU run (behaviour check, not a measurement of an accelerator).
CPU_WARMUP = 3
CPU_REPS = 30


def short(text: str, limit: int = 160) -> str:
    """The first line of ``text``, cut to ``limit`` characters."""
    first = (text.strip().splitlines() or [""])[0]
    return first if len(first) <= limit else first[: limit - 1] + "…"


def _host_memory_bytes() -> float | None:
    try:
        return float(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))
    except (ValueError, OSError, AttributeError):
        return None


def _cpu_name() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as fh:
            for line in fh:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return _platform.processor() or _platform.machine() or "CPU"


@dataclass(frozen=True)
class Environment:
    """Where a run happened. ``kind`` is ``"cuda"``, ``"rocm"``, ``"mps"``, ``"tpu"``, ``"gpu"`` or ``"cpu"``.

    Attributes:
        framework: ``"torch"`` or ``"jax"``.
        framework_version: e.g. ``"2.13.0+cpu"``.
        kind: device kind (see above).
        name: device name as the runtime reports it (``"NVIDIA A100-SXM4-40GB"``, ``"TPU v5 lite"``, CPU model).
        count: devices of that kind visible to the framework.
        memory_bytes: memory of one device, bytes (host RAM for a CPU), None if unknown.
        sm_count: streaming multiprocessors (CUDA only).
        runtime: accelerator runtime, e.g. ``"CUDA 13.0"`` (None on CPU).
        threads: CPU threads the framework uses (CPU runs).
        python: Python version. platform: OS string. date: ISO date of the run.
        extra: anything else worth recording (jaxlib version, ...).
        device_index: which device of that kind ran (``cuda:1`` -> 1).
        compute_capability: CUDA compute capability, e.g. ``(8, 0)`` (CUDA only).
        l2_bytes: L2 cache size of the GPU, bytes (CUDA only).
        sm_clock_hz: SM clock when recorded, Hz; sm_clock_max_hz: its maximum, Hz (from nvidia-smi).
        driver: GPU driver version (from nvidia-smi).
    """

    framework: str
    framework_version: str
    kind: str
    name: str
    count: int
    memory_bytes: float | None = None
    sm_count: int | None = None
    runtime: str | None = None
    threads: int | None = None
    python: str = field(default_factory=lambda: _platform.python_version())
    platform: str = field(default_factory=lambda: _platform.platform(terse=True))
    date: str = field(default_factory=lambda: _dt.date.today().isoformat())
    extra: tuple[tuple[str, str], ...] = ()
    device_index: int = 0
    compute_capability: tuple[int, int] | None = None
    l2_bytes: float | None = None
    sm_clock_hz: float | None = None
    sm_clock_max_hz: float | None = None
    driver: str | None = None

    @property
    def bf16_emulated(self) -> bool:
        """True on a CUDA GPU of compute capability below 8.0 (no BF16 tensor cores: BF16 is emulated)."""
        return self.kind == "cuda" and self.compute_capability is not None and self.compute_capability < (8, 0)

    def caveats(self) -> tuple[str, ...]:
        """Remarks a reader must see beside numbers from this environment (Korean)."""
        out = []
        if self.bf16_emulated:
            cc = ".".join(map(str, self.compute_capability or ()))
            out.append(f"{self.name}(compute capability {cc})에는 BF16 텐서 코어가 없어 BF16이 에뮬레이션됩니다: "
                       "BF16 시간은 이 장치의 BF16 성능이 아니라 변환 비용을 잽니다")
        if self.sm_clock_hz and self.sm_clock_max_hz and self.sm_clock_hz < 0.8 * self.sm_clock_max_hz:
            out.append(f"기록 시점 SM 클록 {self.sm_clock_hz / 1e6:.0f} MHz가 최대 {self.sm_clock_max_hz / 1e6:.0f} MHz보다 "
                       "낮았습니다(유휴 상태이거나 전력/온도 제한)")
        return tuple(out)

    @property
    def accelerator(self) -> bool:
        """True unless the run happened on a CPU."""
        return self.kind != "cpu"

    @property
    def evidence(self) -> str:
        """``실측`` on an accelerator, ``CPU 동작 확인`` on a CPU."""
        return evidence.MEASURED if self.accelerator else evidence.CPU_CHECKED

    def label(self) -> str:
        """Short device label for tables and legends, e.g. ``"NVIDIA A100-SXM4-40GB x1"``."""
        return f"{self.name} x{self.count}" if self.accelerator else f"CPU ({self.name})"

    def summary(self) -> str:
        """Several lines describing the environment (Korean labels)."""
        mem = "알 수 없음" if self.memory_bytes is None else \
            f"{self.memory_bytes / GB:.2f} GB ({self.memory_bytes / GiB:.2f} GiB)"
        lines = [
            f"프레임워크      : {self.framework} {self.framework_version}",
            f"장치 종류       : {self.kind} ({'가속기' if self.accelerator else '가속기 없음'})",
            f"장치 이름       : {self.name}",
            f"장치 개수       : {self.count}",
            f"메모리          : {mem}{' (호스트 RAM)' if not self.accelerator else ''}",
        ]
        if self.sm_count is not None:
            lines.append(f"SM 개수         : {self.sm_count}")
        if self.compute_capability is not None:
            lines.append(f"compute cap.    : {'.'.join(map(str, self.compute_capability))}")
        if self.l2_bytes is not None:
            lines.append(f"L2 캐시         : {self.l2_bytes / 2**20:.0f} MiB")
        if self.sm_clock_hz is not None:
            top = f" (최대 {self.sm_clock_max_hz / 1e6:.0f} MHz)" if self.sm_clock_max_hz else ""
            lines.append(f"SM 클록         : {self.sm_clock_hz / 1e6:.0f} MHz{top}")
        if self.driver:
            lines.append(f"드라이버        : {self.driver}")
        if self.runtime:
            lines.append(f"런타임          : {self.runtime}")
        if self.threads is not None:
            lines.append(f"CPU 스레드      : {self.threads}")
        lines += [f"{k:<15} : {v}" for k, v in self.extra]
        lines += [f"Python          : {self.python}", f"OS              : {self.platform}",
                  f"날짜            : {self.date}", f"근거 라벨       : {self.evidence}"]
        lines += [f"주의            : {c}" for c in self.caveats()]
        return "\n".join(lines)


def _mhz(text: str) -> float | None:
    """``"1410 MHz"`` -> 1.41e9 Hz; None when nvidia-smi printed no number."""
    try:
        return float(text.split()[0]) * 1e6
    except (ValueError, IndexError):
        return None


def nvidia_smi(index: int, fields: tuple[str, ...]) -> list[str] | None:
    """Values of ``fields`` for GPU ``index`` from ``nvidia-smi --query-gpu``; None if it is missing or fails."""
    import subprocess

    try:
        out = subprocess.run(["nvidia-smi", f"--query-gpu={','.join(fields)}", "--format=csv,noheader", "-i",
                              str(index)], capture_output=True, text=True, timeout=20, check=True).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    values = [v.strip() for v in out.strip().split(",")]
    return values if len(values) == len(fields) else None


def torch_device(device: str) -> str:
    import torch

    if device != "auto":
        return device
    if torch.cuda.is_available():
        return "cuda"
    mps = getattr(torch.backends, "mps", None)
    if mps is not None and mps.is_available():
        return "mps"
    return "cpu"


def torch_environment(device: str = "auto") -> Environment:
    """Record the PyTorch environment for ``device`` (``"auto"``: CUDA, else MPS, else CPU).

    On CUDA it records the device actually named (``"cuda:1"`` -> index 1), its
    compute capability, L2 size, SM clock and driver (the last two from
    ``nvidia-smi`` when present).

    Raises RuntimeError if the requested device is not available (the runners turn
    that into an ``unsupported`` result).
    """
    import torch

    dev = torch_device(device)
    kind = dev.split(":")[0]
    if kind == "cuda":
        if not torch.cuda.is_available():
            raise RuntimeError("CUDA 장치가 없습니다 (torch.cuda.is_available() == False)")
        idx = torch.device(dev).index
        idx = torch.cuda.current_device() if idx is None else idx
        p = torch.cuda.get_device_properties(idx)
        hip = getattr(torch.version, "hip", None)
        runtime = f"ROCm {hip}" if hip else f"CUDA {torch.version.cuda}"
        smi = nvidia_smi(idx, ("driver_version", "clocks.sm", "clocks.max.sm")) if not hip else None
        l2 = getattr(p, "L2_cache_size", None)
        return Environment("torch", torch.__version__, "rocm" if hip else "cuda", p.name,
                           torch.cuda.device_count(), float(p.total_memory), int(p.multi_processor_count),
                           runtime, device_index=idx, compute_capability=(int(p.major), int(p.minor)),
                           l2_bytes=float(l2) if l2 else None,
                           sm_clock_hz=_mhz(smi[1]) if smi else None, sm_clock_max_hz=_mhz(smi[2]) if smi else None,
                           driver=smi[0] if smi else None)
    if kind == "mps":
        mps = getattr(torch.backends, "mps", None)
        if mps is None or not mps.is_available():
            raise RuntimeError("MPS 장치가 없습니다")
        return Environment("torch", torch.__version__, "mps", "Apple GPU (MPS)", 1, None, None, "MPS")
    if kind == "cpu":
        return Environment("torch", torch.__version__, "cpu", _cpu_name(), 1, _host_memory_bytes(),
                           threads=torch.get_num_threads())
    raise RuntimeError(f"지원하지 않는 torch 장치입니다: {device!r}")


def jax_environment(platform: str | None = None) -> Environment:
    """Record the JAX environment of ``platform`` (``None``: JAX's default backend; or ``"cpu"``, ``"gpu"``, ``"tpu"``).

    Raises RuntimeError if that platform has no device.
    """
    import jax

    try:
        devs = jax.devices(platform) if platform else jax.devices()
    except RuntimeError as exc:
        raise RuntimeError(f"JAX에서 {platform!r} 장치를 찾지 못했습니다 ({short(str(exc), 90)})") from None
    d = devs[0]
    kind = d.platform.lower()
    if kind in ("cuda", "rocm"):
        kind = "gpu"
    memory = None
    try:
        stats = d.memory_stats()
        if stats and "bytes_limit" in stats:
            memory = float(stats["bytes_limit"])
    except Exception:  # noqa: BLE001 - memory_stats is optional per backend
        memory = None
    name = getattr(d, "device_kind", str(d))
    if kind == "cpu":
        name, memory = _cpu_name(), _host_memory_bytes()
    extra: list[tuple[str, str]] = []
    try:
        import jaxlib

        extra.append(("jaxlib", jaxlib.__version__))
    except Exception:  # noqa: BLE001
        pass
    runtime = None if kind == "cpu" else f"{d.platform} ({jax.default_backend()})"
    flags = os.environ.get("XLA_FLAGS", "")
    if flags:
        extra.append(("XLA_FLAGS", flags))
    threads = None
    if kind == "cpu":  # fixed when JAX started: one thread with the single-threaded Eigen flag, else all cores
        threads = 1 if "--xla_cpu_multi_thread_eigen=false" in flags else os.cpu_count()
    return Environment("jax", jax.__version__, kind, name, len(devs), memory, None, runtime, threads,
                       extra=tuple(extra))


#: XLA_FLAGS that make JAX's CPU backend use one thread (set before JAX starts).
JAX_ONE_THREAD_FLAGS = "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1"


def default_reps(env: Environment | None) -> tuple[int, int]:
    """(warmup, reps): the source's 50 + 500 on an accelerator, a light 3 + 30 on a CPU or unknown device."""
    if env is not None and env.accelerator:
        return DEFAULT_WARMUP, DEFAULT_REPS
    return CPU_WARMUP, CPU_REPS



__all__ = ["CPU_REPS", "CPU_WARMUP", "DEFAULT_REPS", "DEFAULT_WARMUP", "Environment", "JAX_ONE_THREAD_FLAGS", "default_reps",
           "jax_environment", "nvidia_smi", "short", "torch_device", "torch_environment"]
