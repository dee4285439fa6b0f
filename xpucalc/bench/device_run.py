"""Reading back what ``tools/device-run`` measured: the run's index, its environment and its grid rows.

``tools/device-run`` leaves a directory with ``run.json`` (date, arguments, every step's status)
and one JSON file per step (``environment``, ``stream``, ``gemm``, ``torch-grid``, ``layer``,
``jax-grid``, ``cold-compile``). :func:`load` reads it; :meth:`DeviceRun.grid` turns a grid
step's results into :class:`~xpucalc.bench.reference.ReferenceRun` rows, so the tables and plots
that show the source's A100 and TPU v5e runs show a device run beside them, with its own
evidence label (``실측`` on an accelerator, ``CPU 동작 확인`` for a CPU rehearsal).
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

from .. import evidence
from ..core.workload import linear_layer
from .conditions import DTYPE_BYTES
from .reference import ReferenceRun
from .target import catalog_key

#: Step files a run may hold, in the order ``tools/device-run`` runs them.
STEP_NAMES: tuple[str, ...] = ("environment", "stream", "gemm", "torch-grid", "layer", "jax-grid", "cold-compile")
#: The grid step of each framework.
GRID_STEPS: dict[str, str] = {"torch": "torch-grid", "jax": "jax-grid"}


@dataclass(frozen=True)
class DeviceRun:
    """One ``tools/device-run`` directory, read.

    Attributes:
        directory: where it was read from.
        index: ``run.json`` as a dict (date, budget, ``steps`` with status and time, ``skipped``).
        steps: step name -> that step's JSON (only the steps whose file exists).
    """

    directory: str
    index: dict
    steps: dict

    @property
    def environment(self) -> dict | None:
        """The PyTorch environment record (device, driver, runtime, versions, date, label, evidence); None if absent."""
        env = self.steps.get("environment", {})
        return env.get("torch") or env.get("jax")

    @property
    def evidence(self) -> str:
        """The run's evidence label as the run recorded it (``실측`` / ``CPU 동작 확인``); ``아직 미측정`` if unknown."""
        env = self.environment
        return env.get("evidence", evidence.NOT_MEASURED) if env else evidence.NOT_MEASURED

    def status(self, step: str) -> str:
        """``ok``, ``partial``, ``error``, ``timeout`` or ``skipped`` for a planned step; ``absent`` otherwise."""
        for s in self.index.get("steps", []):
            if s["step"] == step:
                return s["status"]
        return "skipped" if any(s["step"] == step for s in self.index.get("skipped", [])) else "absent"

    def grid(self, framework: str = "torch") -> list[ReferenceRun]:
        """The grid step's measured conditions as reference rows (SI units), in the step's order.

        Raises KeyError naming the step when the run has no file for it.
        """
        if framework not in GRID_STEPS:
            raise ValueError(f"framework must be one of {', '.join(GRID_STEPS)}, got {framework!r}")
        step = GRID_STEPS[framework]
        if step not in self.steps:
            raise KeyError(f"device run {self.directory} has no {step}.json (status: {self.status(step)})")
        data = self.steps[step]
        records = [r for path in ("eager", "compiled") for r in data.get(path) or []]
        return [_row(r, self.index.get("date", "")[:10]) for r in records if r.get("status") == "ok"]


def _row(r: dict, date: str) -> ReferenceRun:
    env = r.get("environment") or {}
    w = linear_layer(r["m"], r["k"], r["n"], DTYPE_BYTES[r["precision"]])
    device_s = r["device"]["median_s"]
    return ReferenceRun(
        device=env.get("name", "?"), device_key=catalog_key(env.get("name", "")) or "", framework=r["framework"],
        framework_version=env.get("framework_version", "?"), runtime=env.get("runtime") or "",
        path=r["path"], precision=r["precision"], m=r["m"], k=r["k"], n=r["n"], intensity=w.intensity,
        first_call_s=r["first_call_s"], device_s=device_s, with_transfer_s=r["with_transfer"]["median_s"],
        achieved_flops=w.flops / device_s, effective_bandwidth=w.bytes / device_s,
        max_abs_err=r["accuracy_last"], passed=bool(r["accuracy_passed"]), date=env.get("date") or date,
        source="tools/device-run", evidence_label=r.get("evidence", evidence.NOT_MEASURED))


def load(directory: str | os.PathLike[str]) -> DeviceRun:
    """Read a ``tools/device-run`` output directory.

    Raises FileNotFoundError naming ``run.json`` when ``directory`` is not such a directory.
    """
    d = Path(directory)
    index_file = d / "run.json"
    if not index_file.is_file():
        raise FileNotFoundError(f"{index_file} not found: pass the directory tools/device-run wrote (--out)")
    index = json.loads(index_file.read_text(encoding="utf-8"))
    steps = {name: json.loads((d / f"{name}.json").read_text(encoding="utf-8"))
             for name in STEP_NAMES if (d / f"{name}.json").is_file()}
    return DeviceRun(str(d), index, steps)


__all__ = ["DeviceRun", "GRID_STEPS", "STEP_NAMES", "load"]
