"""Every chapter listed in _toc.yml executes top to bottom in a fresh kernel."""
from __future__ import annotations

import pytest
from _toc import executed, is_executable, resolve, toc_files

CHAPTERS = [f for f in toc_files() if not f.startswith("labs/")]


def test_toc_lists_real_files():
    for entry in toc_files():
        assert resolve(entry).is_file()


@pytest.mark.parametrize("entry", CHAPTERS)
def test_chapter_executes(entry):
    if not is_executable(entry):
        pytest.skip("plain Markdown page, nothing to execute")
    nb = executed(entry)  # raises CellExecutionError with the failing cell on any error; cached per session
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])
              if o.get("output_type") == "error"]
    assert not errors
    stderr = "".join(o.get("text", "") for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])
                     if o.get("name") == "stderr")
    for sign in ("Glyph", "missing from font", "does not have a glyph"):
        assert sign not in stderr, stderr
