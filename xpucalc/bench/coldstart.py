"""Cold first call: the first call of one condition in a fresh Python process with empty compile caches.

In the calling process, the first call of a compiled condition may be served by
an on-disk cache that an earlier run filled (Inductor's FX-graph cache and
Triton's kernel cache for ``torch.compile``; the persistent compilation cache
for ``jax.jit``), which makes it 5x faster and says nothing about a cold start.
:func:`cold_first_call` starts ``python -m xpucalc.bench.coldstart`` with those
caches pointed at a new empty directory (and JAX's persistent cache disabled),
runs one condition with one timed repetition, and reads its first-call time back.
Process start-up and imports are not in the number; runtime setup is measured
apart (as in the parent), so the number is compile + first execution.

The child does not preallocate JAX's GPU memory (the parent already holds 75 %
of it), is told its platform (``JAX_PLATFORMS``, so a CUDA failure is an error
rather than a silent CPU compile) and reports the device it ran on; a number
from another kind of device than the one asked for is dropped, with the reason.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from dataclasses import asdict, dataclass

from .conditions import Condition

#: Environment variables that point each framework's compile caches at a directory.
CACHE_VARIABLES: tuple[str, ...] = ("TORCHINDUCTOR_CACHE_DIR", "TRITON_CACHE_DIR", "JAX_COMPILATION_CACHE_DIR")
#: Set in every child: JAX allocates GPU memory as it needs it instead of taking 75 % at start-up, which the
#: parent (holding its own 75 %) leaves no room for; PyTorch does not read it.
CHILD_VARIABLES: dict[str, str] = {"XLA_PYTHON_CLIENT_PREALLOCATE": "false"}


def fresh_cache_env(cache_dir: str, base: dict[str, str] | None = None, *, jax_platforms: str | None = None
                    ) -> dict[str, str]:
    """A copy of ``base`` (default ``os.environ``) whose compile caches all live under the empty ``cache_dir``.

    Also sets ``CHILD_VARIABLES`` (no JAX preallocation) and, when ``jax_platforms`` is given, ``JAX_PLATFORMS``
    to it (e.g. ``"cuda,cpu"``: JAX then fails loudly instead of falling back to the CPU).
    """
    env = dict(os.environ if base is None else base)
    for var in CACHE_VARIABLES:
        env[var] = os.path.join(cache_dir, var.lower())
    env["JAX_ENABLE_COMPILATION_CACHE"] = "false"
    env.update(CHILD_VARIABLES)
    if jax_platforms:
        env["JAX_PLATFORMS"] = jax_platforms
    return env


@dataclass(frozen=True)
class ColdStart:
    """What the fresh process reported.

    Attributes:
        first_call_s: its first-call time, seconds (None when there is no trustworthy number).
        platform: the kind of device it ran on (``"cpu"``, ``"cuda"``, ``"gpu"``, ``"tpu"``, ...; "" if unknown).
        device: that device's name ("" if unknown).
        reason: why ``first_call_s`` is None (Korean; "" when it is a number).
    """

    first_call_s: float | None
    platform: str = ""
    device: str = ""
    reason: str = ""


def expected_kind(framework: str, device: str | None) -> str | None:
    """The ``Environment.kind`` a child must report for ``device`` (None: any, when the default was asked for).

    torch: ``"cuda:0"`` -> ``"cuda"``, ``"cpu"`` -> ``"cpu"``, ``"mps"`` -> ``"mps"``; JAX: ``"cpu"``, ``"gpu"``
    (also ``"cuda"`` / ``"rocm"``) -> ``"gpu"``, ``"tpu"``.
    """
    if not device or device == "auto":
        return None
    kind = device.partition(":")[0].lower()
    if framework == "jax" and kind in ("cuda", "rocm"):
        return "gpu"
    return kind


def jax_platforms_for(platform: str | None) -> str | None:
    """``JAX_PLATFORMS`` for a child that must run on ``platform`` (None: leave JAX's choice).

    ``"cpu"`` -> ``"cpu"``; an accelerator -> its concrete backend then ``"cpu"`` (``"cuda,cpu"``,
    ``"tpu,cpu"``): every listed backend must start, so a CUDA failure is an error, not a CPU run. ``"gpu"``
    is an alias that JAX expands to CUDA, ROCm *and* oneAPI (and then fails on the ones not installed), so
    it is resolved to the backend this process runs (``"cuda"`` unless JAX says otherwise).
    """
    if not platform:
        return None
    p = platform.lower()
    if p == "cpu":
        return "cpu"
    if p == "gpu":
        p = "cuda"
        try:
            from jax._src import xla_bridge

            p = xla_bridge.canonicalize_platform("gpu")
        except Exception:  # noqa: BLE001 - private API; CUDA is what the labs' GPUs run
            pass
    return f"{p},cpu"


def cold_start(condition: Condition, *, device: str | None = None, compile_mode: str = "default",
               timeout_s: float = 300.0) -> ColdStart:
    """Run ``condition`` once in a fresh process with empty compile caches and report what it measured where.

    Args:
        condition: framework, path, precision and shape (as ``run_torch`` / ``run_jax`` take them).
        device: torch device string (``"cuda:0"``, ``"cpu"``) or JAX platform (``"gpu"``, ``"tpu"``, ``"cpu"``);
            None: the default. For JAX it becomes ``JAX_PLATFORMS`` in the child (see :func:`jax_platforms_for`).
        compile_mode: ``torch.compile`` mode.
        timeout_s: give up after this many seconds.

    Returns:
        a :class:`ColdStart`; its ``first_call_s`` is None with a reason when the child failed, timed out or ran
        on another kind of device than ``device`` (e.g. a CPU compile after its CUDA backend failed).
    """
    args = {**asdict(condition), "device": device, "compile_mode": compile_mode}
    platforms = jax_platforms_for(device) if condition.framework == "jax" else None
    with tempfile.TemporaryDirectory(prefix="xpucalc-cold-") as tmp:
        try:
            run = subprocess.run([sys.executable, "-m", "xpucalc.bench.coldstart", json.dumps(args)],
                                 capture_output=True, text=True, timeout=timeout_s,
                                 env=fresh_cache_env(tmp, jax_platforms=platforms), check=False)
        except subprocess.TimeoutExpired:
            return ColdStart(None, reason=f"새 프로세스가 {timeout_s:g}초 안에 끝나지 않았습니다")
        except (subprocess.SubprocessError, OSError) as exc:
            return ColdStart(None, reason=f"새 프로세스를 시작하지 못했습니다: {type(exc).__name__}: {str(exc)[:100]}")
    if run.returncode != 0:
        last = (run.stderr or "").strip().splitlines()[-1:] or [f"종료 코드 {run.returncode}"]
        return ColdStart(None, reason=f"새 프로세스가 실패했습니다: {last[0][:160]}")
    try:
        out = json.loads((run.stdout or "").strip().splitlines()[-1])
        first = float(out["first_call_s"])
    except (ValueError, KeyError, IndexError, TypeError):
        return ColdStart(None, reason="새 프로세스의 출력에서 첫 호출 시간을 읽지 못했습니다")
    platform, name = str(out.get("platform") or ""), str(out.get("device") or "")
    want = expected_kind(condition.framework, device)
    if want is not None and platform.lower() != want:
        return ColdStart(None, platform, name, f"새 프로세스가 {want}가 아닌 {platform or '알 수 없는 장치'}"
                                               f"({name})에서 실행되어 콜드 컴파일 시간을 버렸습니다")
    return ColdStart(first, platform, name)


def cold_first_call(condition: Condition, *, device: str | None = None, compile_mode: str = "default",
                    timeout_s: float = 300.0) -> float | None:
    """First-call time of ``condition`` in a fresh process with empty compile caches, seconds; None if it failed
    or ran on another kind of device than ``device`` (:func:`cold_start` says why). Arguments as there."""
    return cold_start(condition, device=device, compile_mode=compile_mode, timeout_s=timeout_s).first_call_s


def _main(spec: str) -> None:
    a = json.loads(spec)
    from . import jax_backend, torch_backend

    if a["framework"] == "torch":
        r = torch_backend.run_torch(a["path"], a["precision"], a["m"], a["k"], a["n"], device=a["device"] or "auto",
                                    warmup=0, reps=1, rounds=1, warmup_s=0.0, compile_mode=a["compile_mode"])
    else:
        r = jax_backend.run_jax(a["path"], a["precision"], a["m"], a["k"], a["n"], platform=a["device"],
                                warmup=0, reps=1, rounds=1, warmup_s=0.0)
    if not r.ok:
        raise SystemExit(f"unsupported: {r.reason}")
    env = r.environment
    print(json.dumps({"first_call_s": r.first_call_s, "cache_hit": r.compile_cache_hit,
                      "platform": None if env is None else env.kind, "device": None if env is None else env.name}))


if __name__ == "__main__":
    import warnings

    warnings.simplefilter("ignore")
    _main(sys.argv[1])
