"""No built page shows a glue role as raw text.

A ``{glue:text}`name``` role that lands inside ``$…$`` (MyST dollarmath) or a code span is not
parsed: the reader sees the role itself, or MathJax typesets it. This test reads every page of
the built site (``jupyter-book build .``) and fails on any ``{glue`` left in its HTML body.
XPU_SITE_DIR names another built site. Without a built site it skips, unless XPU_REQUIRE_SITE=1 (as in .ci/run).
"""
from __future__ import annotations

import os
import pathlib
import re

import pytest
from _toc import ROOT, toc_files

SITE = pathlib.Path(os.environ.get("XPU_SITE_DIR", ROOT / "_build" / "html"))  # another build dir may be named
REQUIRE = os.environ.get("XPU_REQUIRE_SITE") == "1"
PAGES = [f"{entry}.html" for entry in toc_files()]
ROLE = re.compile(r"\{glue(?::\w+)?\}")


def _body(html: str) -> str:
    """The page's main content, without the scripts and the downloadable source it may embed."""
    m = re.search(r"(?is)<main\b.*?</main>", html)
    body = m.group(0) if m else html
    return re.sub(r"(?is)<(script|style)\b.*?</\1>", " ", body)


@pytest.mark.parametrize("page", PAGES)
def test_no_unrendered_glue_role(page):
    path = SITE / page
    if not path.is_file():
        if REQUIRE:
            pytest.fail(f"{page} is not in the built site at {SITE}")
        pytest.skip("the site is not built (run `jupyter-book build .` first)")
    body = _body(path.read_text(encoding="utf-8"))
    hits = [body[max(0, m.start() - 60):m.end() + 40] for m in ROLE.finditer(body)]
    assert not hits, (f"{page}: {len(hits)} glue role(s) left unrendered (a role inside $…$ or a code span?): "
                      + " | ".join(hits[:3]))
