"""Reading the data files shipped in ``xpucalc/data/`` (one cached loader for every module)."""
from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources
from typing import Any


@lru_cache(maxsize=None)
def load_json(name: str) -> dict[str, Any]:
    """The parsed JSON file ``xpucalc/data/<name>`` (cached; do not mutate)."""
    return json.loads(resources.files("xpucalc").joinpath("data", name).read_text(encoding="utf-8"))
