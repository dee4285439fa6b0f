"""The alpha-beta fit of collective times (xpucalc.bench.alpha_beta): exact lines, a busy run, the wording."""
from __future__ import annotations

import pytest

from xpucalc.bench import alpha_beta


def test_fit_alpha_beta_recovers_exact_line():
    sizes = [2**10 * 4**i for i in range(8)]
    times = [50e-6 + s / 2e9 for s in sizes]           # alpha = 50 us, 1/beta = 2 GB/s
    for relative in (True, False):
        fit = alpha_beta.fit_alpha_beta(sizes, times, relative=relative)
        assert fit.alpha_s == pytest.approx(50e-6, rel=1e-9) and fit.bandwidth == pytest.approx(2e9, rel=1e-9)
        assert fit.r2 == pytest.approx(1.0) and fit.r2_log == pytest.approx(1.0) and fit.max_rel_residual < 1e-9
    assert fit.half_size_bytes == pytest.approx(50e-6 * 2e9)   # 100 kB
    # ring with 2 ranks: t = 2(n-1)/n S/B = S/B -> B = 1/beta; 4 ranks: B = 1.5/beta
    assert fit.ring_link_bandwidth(2) == pytest.approx(2e9) and fit.ring_link_bandwidth(4) == pytest.approx(3e9)


def test_fit_alpha_beta_r2_drops_with_noise_and_refuses_bad_input():
    sizes = [1e3, 1e4, 1e5, 1e6, 1e7]
    times = [1e-4 + s / 1e9 for s in sizes]
    times[-1] *= 1.5                                      # the largest point off the line by 50 %
    rel = alpha_beta.fit_alpha_beta(sizes, times)
    assert rel.r2 < 0.95 and rel.alpha_s == pytest.approx(1e-4, rel=0.05)   # alpha still found from the small sizes
    # ordinary least squares bends to the largest point: R² stays 0.999, alpha turns negative, the small sizes
    # are off by more than 100 % -- why the fit weighs relative residuals and reports max_rel_residual
    ols = alpha_beta.fit_alpha_beta(sizes, times, relative=False)
    assert ols.r2 > 0.99 and ols.alpha_s < 0 and ols.max_rel_residual > 1
    with pytest.raises(ValueError, match="length"):
        alpha_beta.fit_alpha_beta([1, 2], [1.0])
    with pytest.raises(ValueError, match="two different"):
        alpha_beta.fit_alpha_beta([5, 5], [1.0, 1.0])
    with pytest.raises(ValueError, match="times"):
        alpha_beta.fit_alpha_beta([1, 2], [1.0, -1.0])


# The lab-05 run on a busy 2-core machine (all-reduce, gloo, 2 ranks): medians and 10th percentiles, µs.
BUSY_SIZES = [2**10 * 4**i for i in range(9)]          # 1 KiB .. 64 MiB
BUSY_MEDIAN_US = [1016.2, 323.4, 258.8, 360.7, 404.6, 921.1, 2649.3, 14347.9, 54243.1]
BUSY_P10_US = [190.0, 150.0, 185.0, 240.0, 250.0, 520.0, 1700.0, 12000.0, 48500.0]


def test_fit_alpha_beta_split_takes_alpha_from_small_and_beta_from_large_sizes():
    sizes = BUSY_SIZES
    times = [50e-6 + s / 2e9 for s in sizes]           # an exact line: alpha 50 µs, 1/beta 2 GB/s
    exact = alpha_beta.fit_alpha_beta_split(sizes, times)
    assert exact.alpha_s == pytest.approx(50e-6) and exact.bandwidth == pytest.approx(2e9)
    assert exact.r2 == pytest.approx(1.0) and exact.max_rel_residual < 1e-9
    assert (exact.alpha_max_bytes, exact.beta_min_bytes) == (16 * 2**10, 2**20)   # 1-16 KiB, >= 1 MiB
    # a disturbed middle (64 KiB and 256 KiB three times slower) moves neither parameter
    noisy = list(times)
    noisy[3] *= 3
    noisy[4] *= 3
    fit = alpha_beta.fit_alpha_beta_split(sizes, noisy)
    assert fit.alpha_s == pytest.approx(50e-6) and fit.bandwidth == pytest.approx(2e9)
    assert fit.r2 < 1 and fit.max_rel_residual == pytest.approx(2 / 3, rel=1e-6)   # 3x slow: fit / t - 1 = -2/3


def test_fit_alpha_beta_split_on_the_busy_run():
    t = [x * 1e-6 for x in BUSY_MEDIAN_US]
    p10 = [x * 1e-6 for x in BUSY_P10_US]
    fit = alpha_beta.fit_alpha_beta_split(BUSY_SIZES, t, alpha_times=p10)
    a, b = fit.alpha_s, fit.beta_s_per_byte
    # alpha = min over 1, 4, 16 KiB of (p10 - beta S): 4 KiB's 150 µs less its ~3 µs of transfer (the whole-range
    # fit said 292 µs)
    assert a == pytest.approx(min(p - b * s for s, p in zip(BUSY_SIZES[:3], p10)))
    assert a == pytest.approx(150e-6 - b * 4096) and 140e-6 < a < 150e-6
    # beta with alpha held, relative residuals over 1, 4, 16, 64 MiB: sum(S (t - a) / t²) / sum(S² / t²)
    large = list(zip(BUSY_SIZES[5:], t[5:]))
    assert b == pytest.approx(sum(s * (tt - a) / tt**2 for s, tt in large) / sum(s * s / tt**2 for s, tt in large))
    assert 0.9e9 < fit.bandwidth < 1.6e9              # ~1.1-1.5 GB/s, what the large sizes ran at
    assert fit.n_points == 9
    # the 1 KiB median is about 1016 / 147 = 6.9 alphas: not "almost all alpha"
    assert 6.5 < t[0] / a < 7.5
    assert "거의 전부" not in alpha_beta.describe_small_message(t[0], 1024, fit)


def test_fit_alpha_beta_split_refuses_missing_ranges():
    with pytest.raises(ValueError, match="alpha_max_bytes"):
        alpha_beta.fit_alpha_beta_split([2**20, 2**22], [1e-3, 3e-3])
    with pytest.raises(ValueError, match="beta_min_bytes"):
        alpha_beta.fit_alpha_beta_split([2**10, 2**12], [1e-4, 2e-4])
    with pytest.raises(ValueError, match="same length"):
        alpha_beta.fit_alpha_beta_split([2**10, 2**20], [1e-4, 1e-3], alpha_times=[1e-4])
    with pytest.raises(ValueError, match="not positive"):
        alpha_beta.fit_alpha_beta_split([2**10, 2**20], [1e-3, 1e-4])   # large size faster than alpha


@pytest.mark.parametrize("ratio, words, not_words", [
    (1.00, "거의 전부 α", "흔들림"),
    (1.25, "거의 전부 α", "흔들림"),          # the boundary is still "almost all"
    (1.60, "절반을 넘지만", "거의 전부"),
    (2.00, "절반을 넘지만", "거의 전부"),
    (3.48, "α도 β도 아닌", "거의 전부"),      # the stored run: 1,016 µs against alpha 292 µs
    (0.50, "α보다 짧으므로", "거의 전부"),
])
def test_describe_small_message_words_follow_the_ratio(ratio, words, not_words):
    fit = alpha_beta.AlphaBetaFit(alpha_s=292e-6, beta_s_per_byte=1 / 1.5e9, r2=1.0, max_rel_residual=0.0,
                                   n_points=9)
    text = alpha_beta.describe_small_message(ratio * 292e-6, 1024, fit)
    assert words in text and not_words not in text
    assert f"{ratio:,.2f}배" in text                                   # the number the words follow
    assert "0.68 µs" in text                                            # beta S = 1024 / 1.5e9 s = 0.683 µs
    assert "\n" not in text and text.endswith("다.")


def test_describe_small_message_shares_add_up():
    # time 3 alphas, beta S = 0: alpha 33 %, the rest 67 %
    fit = alpha_beta.AlphaBetaFit(100e-6, 1e-15, 1.0, 0.0, 2)
    text = alpha_beta.describe_small_message(300e-6, 1024, fit)
    assert "33%" in text and "67%" in text and "3.00배" in text
    with pytest.raises(ValueError, match="time_s"):
        alpha_beta.describe_small_message(0.0, 1024, fit)
