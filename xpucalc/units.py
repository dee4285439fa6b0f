"""Units and formatting.

Everything inside xpucalc is in SI base units: bytes, FLOP, seconds, FLOP/s,
bytes/s, watts, joules. The constants below convert *into* those units
(``3.35 * TB`` is 3.35e12 bytes); the ``fmt_*`` helpers convert back for display.

Decimal prefixes (KB, MB, GB, TB) are powers of 1000; binary prefixes (KiB,
MiB, GiB, TiB) are powers of 1024. Vendors use both, sometimes in one document.
"""
from __future__ import annotations

from ._check import _as_float, positive

# --- sizes in bytes -------------------------------------------------------
KB = 1e3
MB = 1e6
GB = 1e9
TB = 1e12
PB = 1e15
KiB = 1024.0
MiB = 1024.0**2
GiB = 1024.0**3
TiB = 1024.0**4

# --- rates ----------------------------------------------------------------
GFLOPS = 1e9   # FLOP/s
TFLOPS = 1e12
PFLOPS = 1e15
EFLOPS = 1e18
TOPS = 1e12    # integer operations per second

# --- counts ---------------------------------------------------------------
MFLOP = 1e6
GFLOP = 1e9
TFLOP = 1e12
PFLOP = 1e15
EFLOP = 1e18
ZFLOP = 1e21
YFLOP = 1e24

# --- time -----------------------------------------------------------------
MS = 1e-3
US = 1e-6
MINUTE = 60.0
HOUR = 3600.0
DAY = 86400.0
YEAR = 365.0 * DAY  # a 365-day year, the convention used for GPU-years in this course

#: Gigabit per second in bytes/s (network links are quoted in bits).
Gbps = 1e9 / 8


def gib_to_gb(gib: float) -> float:
    """Convert a binary quantity in GiB (or GiB/s) to decimal GB (or GB/s)."""
    return _as_float(gib, "gib") * GiB / GB


def gb_to_gib(gb: float) -> float:
    """Convert a decimal quantity in GB (or GB/s) to binary GiB (or GiB/s)."""
    return _as_float(gb, "gb") * GB / GiB


def sparse_to_dense(sparse_peak: float, ratio: float = 2.0) -> float:
    """Dense peak from a structured-sparsity peak (FLOP/s or OP/s).

    2:4 structured sparsity doubles the quoted throughput, so the dense figure is
    ``sparse_peak / ratio`` with ``ratio = 2``. Call this explicitly: a sparse
    figure must never stand in for a dense one silently.
    """
    return positive(sparse_peak, "sparse_peak") / positive(ratio, "ratio")


_DECIMAL = [(1e24, "Y"), (1e21, "Z"), (1e18, "E"), (1e15, "P"), (1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")]
_BINARY = [(TiB, "Ti"), (GiB, "Gi"), (MiB, "Mi"), (KiB, "Ki")]


def _trim(x: float, digits: int) -> str:
    s = f"{x:,.{digits}f}"
    if "." in s:
        s = s.rstrip("0").rstrip(".")
    return s


def fmt_si(value: float, unit: str, digits: int = 2) -> str:
    """Format ``value`` with a decimal prefix: ``fmt_si(3.35e12, "B/s")`` -> ``"3.35 TB/s"``."""
    x = _as_float(value, "value")
    for scale, prefix in _DECIMAL:
        if abs(x) >= scale:
            return f"{_trim(x / scale, digits)} {prefix}{unit}"
    return f"{_trim(x, digits)} {unit}"


def fmt_bytes(n_bytes: float, binary: bool = False, digits: int = 2) -> str:
    """Format a byte count: decimal (``"2.68 GB"``) or, with ``binary=True``, binary (``"2.5 GiB"``)."""
    x = _as_float(n_bytes, "n_bytes")
    if not binary:
        return fmt_si(x, "B", digits)
    for scale, prefix in _BINARY:
        if abs(x) >= scale:
            return f"{_trim(x / scale, digits)} {prefix}B"
    return f"{_trim(x, digits)} B"


def fmt_time(seconds: float, digits: int = 3) -> str:
    """Format a duration in the most readable unit (µs, ms, s, min, h, days, years)."""
    s = _as_float(seconds, "seconds")
    a = abs(s)
    if a < 1e-3:
        return f"{_trim(s / US, digits)} µs"
    if a < 1:
        return f"{_trim(s / MS, digits)} ms"
    if a < 120:
        return f"{_trim(s, digits)} s"
    if a < 2 * HOUR:
        return f"{_trim(s / MINUTE, 1)} 분"
    if a < 2 * DAY:
        return f"{_trim(s / HOUR, 1)} 시간"
    if a < YEAR:
        return f"{_trim(s / DAY, 1)} 일"
    return f"{_trim(s / YEAR, 1)} 년"


def fmt_num(value: float, digits: int = 2) -> str:
    """Format a plain number with thousands separators and at most ``digits`` decimals."""
    return _trim(_as_float(value, "value"), digits)
