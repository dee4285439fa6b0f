"""No built page shows a glue role as raw text.

A ``{glue:text}`name``` role that lands inside ``$…$`` (MyST dollarmath) or a code span is not
parsed: the reader sees the role itself, or MathJax typesets it. This test reads every page of
the built site (``jupyter-book build .``) and fails on any ``{glue`` left in its HTML body.
XPU_SITE_DIR names another built site. Without a built site it skips, unless XPU_REQUIRE_SITE=1 (as in .ci/run).
"""
from __future__ import annotations

import re

import pytest
from _site import PAGES, SITE, require_site

ROLE = re.compile(r"\{glue(?::\w+)?\}")


def _body(html: str) -> str:
    """The page's main content, without the scripts and the downloadable source it may embed."""
    m = re.search(r"(?is)<main\b.*?</main>", html)
    body = m.group(0) if m else html
    return re.sub(r"(?is)<(script|style)\b.*?</\1>", " ", body)


@pytest.mark.parametrize("page", PAGES)
def test_no_unrendered_glue_role(page):
    require_site()
    path = SITE / page
    assert path.is_file(), f"{page} is not in the built site at {SITE}"
    body = _body(path.read_text(encoding="utf-8"))
    hits = [body[max(0, m.start() - 60):m.end() + 40] for m in ROLE.finditer(body)]
    assert not hits, (f"{page}: {len(hits)} glue role(s) left unrendered (a role inside $…$ or a code span?): "
                      + " | ".join(hits[:3]))
