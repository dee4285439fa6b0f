"""The chapters the selected tests read are executed together, several kernels at a time (``_toc.plan``)."""
from __future__ import annotations

import pytest
import _toc


@pytest.hookimpl(trylast=True)  # after -k and -m have deselected what will not run
def pytest_collection_modifyitems(items):
    params = [v for item in items if item.path.parent.name == "book" and hasattr(item, "callspec")
              for v in item.callspec.params.values() if isinstance(v, str)]
    if not params:
        return
    pages = set(_toc.toc_files())
    _toc.plan(e for e in dict.fromkeys(params) if e in pages and not e.startswith("labs/") and _toc.is_executable(e))
