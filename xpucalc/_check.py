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


def check_bool(value: object, name: str) -> bool:
    """Return ``value`` if it is True or False, else raise ValueError naming ``name``.

    A string such as ``"False"`` is refused: ``bool("False")`` is True, so it would silently
    turn the option on.
    """
    if not isinstance(value, bool):
        hint = f"; write {name}={value.strip().capitalize()} without quotes" if isinstance(value, str) and \
            value.strip().lower() in ("true", "false") else ""
        raise ValueError(f"{name} must be True or False, got {value!r} ({type(value).__name__}){hint}")
    return value


def whole(value: object, name: str, minimum: int = 0) -> int:
    """Return ``value`` as int if it is a whole number >= ``minimum``, else raise ValueError naming ``name``."""
    x = _as_float(value, name)
    if x != int(x) or x < minimum:
        raise ValueError(f"{name} must be a whole number >= {minimum}, got {value!r}")
    return int(x)


#: Smallest plausible figure of an accelerator in SI units, per unit, with the unit a smaller value
#: was probably typed in and that unit's power of ten. No accelerator has under 1 MB of memory,
#: 1 MB/s of bandwidth or 1 GFLOP/s of peak; 80 "bytes" of memory is 80 GB typed without its unit.
PLAUSIBLE_FLOOR: dict[str, tuple[float, str, int]] = {
    "bytes": (1e6, "GB", 9),
    "bytes/s": (1e6, "GB/s", 9),
    "FLOP/s": (1e9, "TFLOP/s", 12),
}


def device_figure(value: object, name: str, unit: str) -> float:
    """Return ``value`` as float if it is > 0 and plausible for an accelerator in ``unit`` (SI), else ValueError.

    ``unit`` is ``"bytes"`` (a capacity), ``"bytes/s"`` (a bandwidth) or ``"FLOP/s"`` (a peak). A value
    below :data:`PLAUSIBLE_FLOOR` is refused with the conversion the reader probably meant:
    ``memory=80`` -> "looks like GB; pass 80e9 (bytes)".
    """
    x = positive(value, name)
    floor, meant, exp = PLAUSIBLE_FLOOR[unit]
    if x < floor:
        raise ValueError(f"{name}={value!r} looks like {meant}; xpucalc works in {unit}: pass {x:g}e{exp} "
                         f"({unit}) if you meant {x:g} {meant}")
    return x
