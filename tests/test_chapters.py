"""Every chapter listed in _toc.yml executes top to bottom in a fresh kernel."""
from __future__ import annotations

import jupytext
import nbformat
import pytest
from _toc import resolve, toc_files
from nbclient import NotebookClient

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
    for sign in ("Glyph", "missing from font", "does not have a glyph"):
        assert sign not in stderr, stderr
