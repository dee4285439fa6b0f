"""Every chapter listed in _toc.yml executes top to bottom in a fresh kernel."""
from __future__ import annotations

import pathlib

import jupytext
import nbformat
import pytest
import yaml
from nbclient import NotebookClient

ROOT = pathlib.Path(__file__).resolve().parents[1]


def toc_files() -> list[str]:
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))
    files = [toc["root"]]

    def walk(node):
        if isinstance(node, dict):
            if "file" in node:
                files.append(node["file"])
            for v in node.values():
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)

    walk(toc.get("parts", toc.get("chapters", [])))
    return files


def resolve(entry: str) -> pathlib.Path:
    for suffix in ("", ".md", ".ipynb"):
        p = ROOT / f"{entry}{suffix}"
        if p.is_file():
            return p
    raise FileNotFoundError(entry)


CHAPTERS = [f for f in toc_files() if not f.startswith("labs/")]


def test_toc_lists_real_files():
    for entry in toc_files():
        assert resolve(entry).is_file()


@pytest.mark.parametrize("entry", CHAPTERS)
def test_chapter_executes(entry):
    path = resolve(entry)
    if path.suffix == ".md" and "format_name: myst" not in path.read_text(encoding="utf-8")[:400]:
        pytest.skip("plain Markdown page, nothing to execute")
    nb = jupytext.read(path) if path.suffix == ".md" else nbformat.read(path, as_version=4)
    client = NotebookClient(nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}})
    client.execute()  # raises CellExecutionError with the failing cell on any error
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])
              if o.get("output_type") == "error"]
    assert not errors
    stderr = "".join(o.get("text", "") for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])
                     if o.get("name") == "stderr")
    assert "Glyph" not in stderr and "missing from font" not in stderr, stderr
