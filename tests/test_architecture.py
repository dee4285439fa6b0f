"""The package's layout is its architecture (CONTRIBUTING.md §1, "저장소 구성과 그 이유"): these tests keep it so.

1. Layers read top-down: foundation (``units``, ``evidence``, ``_check``) < ``core`` < ``catalog`` < ``llm``
   < ``bench`` < ``render``. No module imports from a layer above its own (function-level imports included).
2. No name shadows a module: ``pkg.<name>`` is the submodule ``<name>`` for every module of the package.
3. ``import xpucalc`` and every calculator (``core``, ``catalog``, ``llm``) work where numpy and matplotlib
   cannot be imported (the in-page calculators run without them).
4. One formula, one home: every collective time comes from ``xpucalc.llm.comm``.
"""
from __future__ import annotations

import ast
import importlib
import pathlib
import re
import subprocess
import sys
import tokenize

import pytest

PKG = pathlib.Path(__file__).resolve().parents[1] / "xpucalc"
LAYERS = ("foundation", "core", "catalog", "llm", "bench", "render")
FOUNDATION = {"units", "evidence", "_check"}


def modules() -> list[str]:
    out = []
    for p in sorted(PKG.rglob("*.py")):
        parts = p.relative_to(PKG.parent).with_suffix("").parts
        out.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return out


def layer(module: str) -> str:
    parts = module.split(".")
    if len(parts) == 1:
        return "top"                     # xpucalc/__init__.py: the public face, may import any layer
    return "foundation" if parts[1] in FOUNDATION else parts[1]


def imported(module: str) -> set[str]:
    """Every xpucalc module that ``module`` imports, anywhere in its source, as absolute names."""
    path = PKG.parent / (module.replace(".", "/") + ("/__init__.py" if (PKG.parent / module.replace(".", "/")).is_dir() else ".py"))
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                src = ".".join(base + ([node.module] if node.module else []))
            else:
                src = node.module or ""
            if src.split(".")[0] != "xpucalc":
                continue
            for alias in node.names:
                full = f"{src}.{alias.name}"
                found.add(full if full in MODULES else src)
        elif isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.split(".")[0] == "xpucalc"}
    return found


MODULES = set(modules())


@pytest.mark.parametrize("module", sorted(m for m in MODULES if layer(m) != "top"))
def test_no_module_imports_from_a_layer_above_its_own(module):
    own = LAYERS.index(layer(module))
    above = sorted(t for t in imported(module) if layer(t) != "top" and LAYERS.index(layer(t)) > own)
    assert not above, (f"{module} (layer {layer(module)}) imports {above} from a layer above its own; "
                       f"layers read {' < '.join(LAYERS)}: move the code down, or the import up")


@pytest.mark.parametrize("module", sorted(m for m in MODULES if m.count(".") >= 1))
def test_no_name_shadows_a_module(module):
    parent, _, name = module.rpartition(".")
    mod = importlib.import_module(module)
    assert getattr(importlib.import_module(parent), name) is mod, (
        f"{parent}.{name} is not the module {module}: rename the function or the module")


BLOCK = """
import sys
class NoNumpy:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("numpy", "matplotlib"):
            raise ImportError(f"{name} is blocked in this test")
sys.meta_path.insert(0, NoNumpy())
"""


def test_calculators_import_and_run_without_numpy_or_matplotlib():
    calculators = sorted(m for m in MODULES if layer(m) in ("foundation", "core", "catalog", "llm"))
    code = BLOCK + f"""
import importlib
import xpucalc
from xpucalc import devices, llm
for m in {calculators!r}:
    importlib.import_module(m)
h100 = devices.get("h100-sxm", precision="bf16")
r = xpucalc.roofline(xpucalc.linear_layer(128, 1024, 1024, 2), h100)
est = llm.serve(llm.models.get("llama-3-70b"), h100, tp=8, batch=16, context=4096)
assert est.fits and r.bound in ("compute", "memory"), (est, r)
assert not [m for m in sys.modules if m.split(".")[0] in ("numpy", "matplotlib")]
print("ok")
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and out.stdout.strip().endswith("ok"), out.stderr[-3000:]


# The ring factor (n - 1) / n of every collective, written as code (docstrings and comments do not count).
RING = re.compile(r"\(\s*(\w+)\s*-\s*1\s*\)\s*/\s*\1\b")


def code_only(path: pathlib.Path) -> str:
    """The source of ``path`` without its strings and comments."""
    with path.open("rb") as f:
        return " ".join(tok.string for tok in tokenize.tokenize(f.readline)
                        if tok.type not in (tokenize.STRING, tokenize.COMMENT, tokenize.ENCODING))


def test_every_collective_formula_lives_in_llm_comm():
    homes = sorted(str(p.relative_to(PKG.parent)) for p in PKG.rglob("*.py") if RING.search(code_only(p)))
    assert homes == ["xpucalc/llm/comm.py"], (
        f"the ring factor (n - 1) / n is written in {homes}; call xpucalc.llm.comm instead of writing it again")
