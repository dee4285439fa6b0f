"""The alpha-beta model of a collective's time, t(S) = alpha + beta S, fitted to measured times.

* :func:`fit_alpha_beta` -- one least-squares line through every size (relative residuals by default);
* :func:`fit_alpha_beta_split` -- alpha from the small sizes' latency floor, beta from the large sizes
  only, so that neither parameter is decided by the other range's noise;
* :func:`describe_small_message` -- a Korean sentence on how much of a small message's time alpha explains,
  its words chosen from the ratio.

Times in seconds, sizes in bytes. ``xpucalc.bench.collectives`` measures the times these are fitted to.
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .._check import positive
from ..llm.comm import busbw_factor
from .timing import check_count

#: ``fit_alpha_beta_split``: sizes up to this set alpha (the latency floor): 1, 4 and 16 KiB of DEFAULT_SIZES.
ALPHA_MAX_BYTES = 16 * 2**10
#: ``fit_alpha_beta_split``: sizes from this on set beta (the bandwidth): 1 MiB and up.
BETA_MIN_BYTES = 2**20
#: ``describe_small_message``: a time at most this many alphas is "almost all alpha"; at most
#: ``ALPHA_HALF_RATIO`` alphas, alpha is still more than half of it.
ALPHA_ALMOST_ALL_RATIO = 1.25
ALPHA_HALF_RATIO = 2.0


@dataclass(frozen=True)
class AlphaBetaFit:
    """t(S) = alpha + beta S fitted to measured times.

    Attributes:
        alpha_s: fixed cost per operation, seconds. beta_s_per_byte: seconds per byte of S.
        r2: coefficient of determination of the fit on the measured times (1 - SS_res / SS_tot).
        max_rel_residual: largest abs(t_fit / t - 1) over the points.
        n_points: points used.
        alpha_max_bytes, beta_min_bytes: for ``fit_alpha_beta_split``, the size ranges alpha and beta came from.
        r2_log: R² of log(t_fit) against log(t): how well the shape holds across the whole size range,
            where the plain R² is decided by the largest sizes.
    """

    alpha_s: float
    beta_s_per_byte: float
    r2: float
    max_rel_residual: float
    n_points: int
    r2_log: float = math.nan
    #: ``fit_alpha_beta_split``: the largest size that set alpha and the smallest that set beta (nan: all sizes).
    alpha_max_bytes: float = math.nan
    beta_min_bytes: float = math.nan

    def predict(self, size_bytes: float) -> float:
        """alpha + beta S, seconds."""
        return self.alpha_s + self.beta_s_per_byte * size_bytes

    @property
    def bandwidth(self) -> float:
        """1 / beta: the algorithm bandwidth at large sizes, bytes/s."""
        return 1.0 / self.beta_s_per_byte

    def ring_link_bandwidth(self, world_size: int) -> float:
        """Per-rank bandwidth B of the ring model t = 2(n-1)/n S / B that gives this beta, bytes/s."""
        n = check_count(world_size, "world_size", 2)
        return busbw_factor("all_reduce", n) / self.beta_s_per_byte

    @property
    def half_size_bytes(self) -> float:
        """S at which the fixed and the size-proportional parts are equal (alpha / beta), bytes."""
        return self.alpha_s / self.beta_s_per_byte


def fit_alpha_beta(sizes: Sequence[float], times: Sequence[float], *, relative: bool = True) -> AlphaBetaFit:
    """Least-squares fit of t = alpha + beta S.

    Args:
        sizes: message sizes S, bytes (>= 2 distinct values). times: measured seconds, same length.
        relative: minimise the relative residuals ((fit - t) / t), so that the small
            sizes fix alpha instead of being drowned by the large ones; False is
            ordinary least squares on the times.

    The returned R² is always computed on the times themselves.
    """
    import numpy as np

    s = np.asarray([positive(x, "sizes") for x in sizes], dtype=float)
    t = np.asarray([positive(x, "times") for x in times], dtype=float)
    if s.shape != t.shape:
        raise ValueError(f"sizes and times must have the same length, got {s.size} and {t.size}")
    if np.unique(s).size < 2:
        raise ValueError("sizes must hold at least two different sizes to fit two parameters")
    w = 1.0 / t if relative else np.ones_like(t)
    a = np.stack([np.ones_like(s), s], axis=1) * w[:, None]
    (alpha, beta), *_ = np.linalg.lstsq(a, t * w, rcond=None)
    if beta <= 0:
        raise ValueError("the fitted beta is not positive: the times do not grow with the size (too noisy?)")
    return _scored(s, t, float(alpha), float(beta))


def _scored(s: Any, t: Any, alpha: float, beta: float, **ranges: float) -> AlphaBetaFit:
    """The fit alpha + beta S with its R², log R² and largest relative residual over the points (s, t)."""
    import numpy as np

    fit = alpha + beta * s
    ss_res = float(np.sum((t - fit) ** 2))
    ss_tot = float(np.sum((t - t.mean()) ** 2))
    r2 = 1.0 - ss_res / ss_tot if ss_tot > 0 else 1.0
    r2_log = math.nan
    if np.all(fit > 0):
        lt, lf = np.log(t), np.log(fit)
        tot = float(np.sum((lt - lt.mean()) ** 2))
        r2_log = 1.0 - float(np.sum((lt - lf) ** 2)) / tot if tot > 0 else 1.0
    return AlphaBetaFit(alpha, beta, r2, float(np.max(np.abs(fit / t - 1.0))), int(s.size), r2_log, **ranges)


def fit_alpha_beta_split(sizes: Sequence[float], times: Sequence[float], *, alpha_times: Sequence[float] | None = None,
                         alpha_max_bytes: float = ALPHA_MAX_BYTES, beta_min_bytes: float = BETA_MIN_BYTES
                         ) -> AlphaBetaFit:
    """t = alpha + beta S with each parameter taken from the sizes it governs.

    One line through every size lets the noisiest points decide both parameters (a busy machine gave
    R² 0.70). Here alpha is the latency floor: the smallest of ``alpha_times`` (default ``times``; pass each
    size's p10 or minimum) less that size's own transfer time beta S, over the sizes <= ``alpha_max_bytes``
    (other load can only raise it). beta is fitted with alpha held, on the sizes >= ``beta_min_bytes`` only,
    minimising the relative residuals: beta = sum(S (t - alpha) / t²) / sum(S² / t²). The two are
    repeated a few rounds (beta S of a small size is a fraction of a percent of alpha, so they settle at once).

    Args:
        sizes: message sizes S, bytes. times: measured seconds (e.g. medians), same length.
        alpha_times: seconds per size to take alpha from (same length), default ``times``.
        alpha_max_bytes: largest size that sets alpha. beta_min_bytes: smallest size that sets beta.

    The returned R², log R² and largest relative residual are over all points, so they say how well the
    two-range line describes every size; ``alpha_max_bytes``/``beta_min_bytes`` record the ranges used.
    """
    import numpy as np

    s = np.asarray([positive(x, "sizes") for x in sizes], dtype=float)
    t = np.asarray([positive(x, "times") for x in times], dtype=float)
    at = t if alpha_times is None else np.asarray([positive(x, "alpha_times") for x in alpha_times], dtype=float)
    if not s.shape == t.shape == at.shape:
        raise ValueError(f"sizes, times and alpha_times must have the same length, got {s.size}, {t.size} and {at.size}")
    small, large = s <= alpha_max_bytes, s >= beta_min_bytes
    if not small.any():
        raise ValueError(f"no size is <= alpha_max_bytes = {alpha_max_bytes:,.0f} B to take alpha from; "
                         "measure a small size (e.g. 1 KiB) or raise alpha_max_bytes")
    if not large.any():
        raise ValueError(f"no size is >= beta_min_bytes = {beta_min_bytes:,.0f} B to fit beta on; "
                         "measure a large size (e.g. 16 MiB) or lower beta_min_bytes")
    sl, tl = s[large], t[large]
    beta = 0.0
    for _ in range(8):  # alpha net of the small sizes' own transfer time beta S; converges in a few rounds
        alpha = float(np.min(at[small] - beta * s[small]))
        beta = float(np.sum(sl * (tl - alpha) / tl**2) / np.sum(sl**2 / tl**2))
    if beta <= 0:
        raise ValueError("the fitted beta is not positive: the large sizes take no longer than alpha (too noisy?)")
    return _scored(s, t, alpha, beta, alpha_max_bytes=float(s[small].max()), beta_min_bytes=float(sl.min()))


def describe_small_message(time_s: float, size_bytes: float, fit: AlphaBetaFit) -> str:
    """One Korean sentence on how much of a small message's time ``time_s`` the latency alpha explains.

    The words follow the ratio time / alpha: at most ``ALPHA_ALMOST_ALL_RATIO`` "almost all alpha", at most
    ``ALPHA_HALF_RATIO`` "alpha is most of it", above that "alpha explains only part"; below 1 / 1.25 the time
    is shorter than alpha, which says alpha was taken from noisier sizes. The sentence gives the ratio,
    alpha's share and the transfer part beta S, in µs.
    """
    t, size = positive(time_s, "time_s"), positive(size_bytes, "size_bytes")
    ratio, share = t / fit.alpha_s, fit.alpha_s / t
    transfer = fit.beta_s_per_byte * size
    head = (f"{t * 1e6:,.0f} µs는 α({fit.alpha_s * 1e6:,.0f} µs)의 {ratio:,.2f}배이고, 데이터를 옮기는 몫 βS는 "
            f"{transfer * 1e6:,.2f} µs입니다.")
    if ratio < 1 / ALPHA_ALMOST_ALL_RATIO:
        return head + (" 시간이 α보다 짧으므로 α를 정한 크기들의 측정이 이 크기보다 더 흔들렸다는 뜻입니다. "
                       "α를 다시 재고 나서 해석합니다.")
    if ratio <= ALPHA_ALMOST_ALL_RATIO:
        return head + " 그러므로 이 시간은 거의 전부 α입니다."
    if ratio <= ALPHA_HALF_RATIO:
        return head + (f" α가 시간의 {share:.0%}로 절반을 넘지만, 나머지 {1 - share - transfer / t:.0%}는 α로도 βS로도 "
                       "설명되지 않는 흔들림입니다.")
    return head + (f" α는 이 시간의 {share:.0%}뿐이고 βS도 작으므로, 나머지 {1 - share - transfer / t:.0%}는 α도 β도 아닌 "
                   "측정 중의 방해(예를 들어 다른 프로세스가 코어를 가져간 반복)입니다. 이 시간으로 α를 읽으면 안 됩니다.")


__all__ = ["ALPHA_ALMOST_ALL_RATIO", "ALPHA_HALF_RATIO", "ALPHA_MAX_BYTES", "AlphaBetaFit", "BETA_MIN_BYTES",
           "describe_small_message", "fit_alpha_beta", "fit_alpha_beta_split"]
