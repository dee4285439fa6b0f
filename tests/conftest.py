"""Shared by every test folder: this file's presence puts ``tests/`` on ``sys.path`` (pytest's default
import mode), so the helpers ``_toc`` and ``_catalog_helpers`` import from any folder.

The folders mirror the package (``core/``, ``catalog/``, ``llm/``, ``bench/``, ``render/``: one
``test_<module>.py`` per module), then ``book/`` (chapters, labs, conventions, scaffolds, Colab) and
``site/`` (the built site in a browser, links, search, the PDF).
"""
