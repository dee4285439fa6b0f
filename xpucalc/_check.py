"""Input checks shared by every public function.

Each check names the argument in its error message and says how to fix it, so
that a reader who passes a bad value sees what went wrong instead of a wrong
number or a bare ``ZeroDivisionError``.
"""
from __future__ import annotations

import math
from numbers import Real


def _as_float(value: object, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, Real):
        raise ValueError(f"{name} must be a real number, got {value!r} ({type(value).__name__})")
    x = float(value)
    if math.isnan(x):
        raise ValueError(f"{name} is NaN; pass a finite number")
    if math.isinf(x):
        raise ValueError(f"{name} is infinite; pass a finite number")
    return x


def positive(value: object, name: str) -> float:
    """Return ``value`` as float if it is finite and > 0, else raise ValueError naming ``name``."""
    x = _as_float(value, name)
    if x <= 0:
        raise ValueError(f"{name} must be > 0, got {value!r}; it is divided by or scales a time, so zero or negative has no meaning")
    return x


def non_negative(value: object, name: str) -> float:
    """Return ``value`` as float if it is finite and >= 0, else raise ValueError naming ``name``."""
    x = _as_float(value, name)
    if x < 0:
        raise ValueError(f"{name} must be >= 0, got {value!r}")
    return x


def positive_int(value: object, name: str) -> int:
    """Return ``value`` as int if it is a whole number >= 1, else raise ValueError naming ``name``."""
    x = _as_float(value, name)
    if x != int(x) or x < 1:
        raise ValueError(f"{name} must be a whole number >= 1, got {value!r}")
    return int(x)


def fraction(value: object, name: str) -> float:
    """Return ``value`` as float if 0 < value <= 1 (a utilisation such as MFU), else raise ValueError."""
    x = _as_float(value, name)
    if not 0 < x <= 1:
        raise ValueError(f"{name} must be a fraction in (0, 1], got {value!r}; write 40 % as 0.4")
    return x
