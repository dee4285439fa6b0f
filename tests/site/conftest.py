"""Fixtures of the site tests: the built site served locally, and one headless Chromium for the whole session.

See ``_site.py`` for where the site is found and what a missing site or browser does (skip, or fail under
XPU_REQUIRE_SITE=1).
"""
from __future__ import annotations

import functools
import http.server
import pathlib
import threading

import pytest
from _site import CHROMIUM, SITE, Browser, require_site, unavailable


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):  # keep pytest output clean
        pass


@pytest.fixture(scope="session")
def base_url():
    require_site()
    handler = functools.partial(_QuietHandler, directory=str(SITE))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


@pytest.fixture(scope="session")
def browser(base_url):
    """One Chromium for the whole session (the browser, search and PDF-link tests share it)."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        unavailable("playwright is not installed")
    if not pathlib.Path(CHROMIUM).is_file():
        unavailable("Debian's chromium is not installed (apt-get install chromium)")
    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, args=[
            "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
            "--disable-component-update", "--disable-sync"])
        yield Browser(chromium, base_url)
        chromium.close()
