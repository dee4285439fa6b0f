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
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from dataclasses import asdict

from .conditions import Condition

#: Environment variables that point each framework's compile caches at a directory.
CACHE_VARIABLES: tuple[str, ...] = ("TORCHINDUCTOR_CACHE_DIR", "TRITON_CACHE_DIR", "JAX_COMPILATION_CACHE_DIR")


def fresh_cache_env(cache_dir: str, base: dict[str, str] | None = None) -> dict[str, str]:
    """A copy of ``base`` (default ``os.environ``) whose compile caches all live under the empty ``cache_dir``."""
    env = dict(os.environ if base is None else base)
    for var in CACHE_VARIABLES:
        env[var] = os.path.join(cache_dir, var.lower())
    env["JAX_ENABLE_COMPILATION_CACHE"] = "false"
    return env


def cold_first_call(condition: Condition, *, device: str | None = None, compile_mode: str = "default",
                    timeout_s: float = 300.0) -> float | None:
    """First-call time of ``condition`` in a fresh process with empty compile caches, seconds; None if it failed.

    Args:
        condition: framework, path, precision and shape (as ``run_torch`` / ``run_jax`` take them).
        device: torch device string or JAX platform (None: the default).
        compile_mode: ``torch.compile`` mode.
        timeout_s: give up after this many seconds.
    """
    args = {**asdict(condition), "device": device, "compile_mode": compile_mode}
    with tempfile.TemporaryDirectory(prefix="xpucalc-cold-") as tmp:
        try:
            out = subprocess.run([sys.executable, "-m", "xpucalc.bench.coldstart", json.dumps(args)],
                                 capture_output=True, text=True, timeout=timeout_s, env=fresh_cache_env(tmp),
                                 check=True).stdout
            return float(json.loads(out.strip().splitlines()[-1])["first_call_s"])
        except (subprocess.SubprocessError, OSError, ValueError, KeyError, IndexError):
            return None


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
    print(json.dumps({"first_call_s": r.first_call_s, "cache_hit": r.compile_cache_hit}))


if __name__ == "__main__":
    import warnings

    warnings.simplefilter("ignore")
    _main(sys.argv[1])
