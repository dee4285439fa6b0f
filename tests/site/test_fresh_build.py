"""``_ext/xpu_fresh.py``: an incremental build executes the pages again when xpucalc, its data or terms.yml change.

No built site needed: a tiny myst-nb project whose page prints a value read from ``xpucalc/data.json`` is built
three times. Without the extension, the second build would show the first value (the execution cache keys a page
on its own cells only).
"""
from __future__ import annotations

import subprocess
import sys

import pytest
from _toc import ROOT

sys.path.insert(0, str(ROOT / "_ext"))
import xpu_fresh  # noqa: E402

CONF = """
import sys
sys.path.insert(0, {ext!r})
extensions = ["myst_nb", "xpu_fresh"]
nb_execution_mode = "cache"
exclude_patterns = ["xpucalc"]
"""
PAGE = """---
file_format: mystnb
kernelspec:
  name: python3
  display_name: Python 3
---
# 값

```{code-cell} python3
import json, pathlib
print("value", json.loads(pathlib.Path("xpucalc/data.json").read_text())["v"])
```
"""


def test_the_fingerprint_follows_code_and_data_not_bytecode(tmp_path):
    (tmp_path / "xpucalc" / "__pycache__").mkdir(parents=True)
    (tmp_path / "book").mkdir()
    (tmp_path / "xpucalc" / "a.py").write_text("x = 1\n")
    (tmp_path / "book" / "terms.yml").write_text("- term: a\n")
    first = xpu_fresh.inputs_fingerprint(tmp_path)
    (tmp_path / "xpucalc" / "__pycache__" / "a.cpython-311.pyc").write_bytes(b"\0")
    (tmp_path / "xpucalc" / "notes.txt").write_text("not an input")
    assert xpu_fresh.inputs_fingerprint(tmp_path) == first
    (tmp_path / "book" / "terms.yml").write_text("- term: b\n")
    assert xpu_fresh.inputs_fingerprint(tmp_path) != first


def test_a_cache_is_stale_only_with_records_and_another_stamp(tmp_path):
    cache = tmp_path / ".jupyter_cache"
    assert not xpu_fresh.is_stale(cache, "abc")             # no cache: nothing to clear
    cache.mkdir()
    assert not xpu_fresh.is_stale(cache, "abc")             # an empty one neither
    (cache / "global.db").write_bytes(b"")
    assert xpu_fresh.is_stale(cache, "abc")                 # records of unknown inputs
    (cache / xpu_fresh.STAMP).write_text("abc\n")
    assert not xpu_fresh.is_stale(cache, "abc") and xpu_fresh.is_stale(cache, "def")


def _build(src, out) -> str:
    r = subprocess.run([sys.executable, "-m", "sphinx", "-b", "html", str(src), str(out)],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    return r.stdout + r.stderr


def test_a_changed_input_executes_the_page_again(tmp_path):
    pytest.importorskip("myst_nb")
    src, out = tmp_path / "src", tmp_path / "build" / "html"
    (src / "xpucalc").mkdir(parents=True)
    (src / "conf.py").write_text(CONF.format(ext=str(ROOT / "_ext")), encoding="utf-8")
    (src / "index.md").write_text(PAGE, encoding="utf-8")
    (src / "xpucalc" / "data.json").write_text('{"v": 1}')
    _build(src, out)
    assert "value 1" in (out / "index.html").read_text(encoding="utf-8")
    (src / "xpucalc" / "data.json").write_text('{"v": 2}')
    log = _build(src, out)
    assert "value 2" in (out / "index.html").read_text(encoding="utf-8") and "[xpu_fresh]" in log
    log = _build(src, out)                                   # nothing changed: the cache stands
    assert "[xpu_fresh]" not in log and "value 2" in (out / "index.html").read_text(encoding="utf-8")
