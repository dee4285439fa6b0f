"""Verdicts and labels of the LLM pages audited sentence by sentence for issue 21 (deliverables 2 and 3).

The pages: llm-hardware/index, memory-bandwidth, interconnects, parallelism, roofline-serving (glossary: its
entries come from book/terms.yml; their comparisons were read and hold, nothing is glued there). Where the prose
says which is faster, what fits, how many cards, what dominates or which way a comparison goes, the word is glued
from a comparison in the page and asserted here; where a sentence or a table cell carries an evidence label, the
label is computed from the figures it rests on (``evidence.weakest``) and asserted here. Verdicts the chapter
tests already assert (tests/book/test_chapter_values.py) are not repeated. Every expected value is worked by hand
in the comment (catalog figures copied as literals), never computed with xpucalc. Numbers are compared as shown.
"""
from __future__ import annotations

import pathlib

import pytest
from _toc import assert_glued, unshown_verdicts

ROOT = pathlib.Path(__file__).resolve().parents[2]
UNVERIFIED = "이번 조사에서 미확인"

# page -> {glue name: expected}: a str (exact text) or a number (the first number shown, rounded as shown)
EXPECTED: dict[str, dict[str, object]] = {
    "book/llm-hardware/index": {
        # Llama 3 8B BF16 on A100 80GB: the compute units work (BW / W) / (P / 2N) = BW / P of the time, as W = 2N
        # bytes: 2.039e12 / 312e12 = 0.65 %
        "idx_busy_pct": 0.65, "idx_idle_verdict": "대부분의 시간을 놀고 있습니다",
    },
    "book/llm-hardware/memory-bandwidth": {
        "mb_h100_peak_ev": "분석 계산",       # the catalog's H100 SXM BF16 dense peak: half of the published sparse 1,979
        "mb_one_fit": "한 장에 들어가지 않습니다",   # 140e9 B > 80 GiB = 85,899,345,920 B
        # Llama 3 70B at 4K: KV 4,096 x 327,680 = 1,342,177,280 B of 141,107,412,992 + 1,342,177,280 = 0.94 %
        "mb_kv_pct": 0.94, "mb_kv_verdict": "가중치가 대부분을 차지합니다",
        "mb_double_dir": "1장 늘어납니다",    # the margin counted twice: 3 cards instead of 2
        # a token at TP 2 reads (141,107,412,992 - 2,101,346,304 + 16,384 + 1,342,177,280) / 2 = 70,174,130,176 B
        # / 3.35e12 = 20.947 ms + 160 x (8.7 us + 0.036 us) = 1.398 ms -> 22.345 ms; TP 4: 10.474 + 160 x 9.2546 us
        # = 1.481 ms -> 11.955 ms; 22.345 / 11.955 = 1.869
        "mb_split_gain": 1.87, "mb_split_dir": "2배에 조금 못 미칩니다",
        "mb_lat_ev": "문서 확인",             # SGLang PR #2904's one-shot all-reduce, a third party's report
        "mb_hbm_pcie5": 53,                   # 3.35e12 / (32 GT/s x 16 x 128/130 / 8 = 63.015e9) = 53.2
        # representative values: HBM2 1,555 / server DDR5 307.2 = 5.06; HBM3e 4,800 / DDR4 51.2 = 93.75
        "mb_hbm_ddr_lo": 5.06, "mb_hbm_ddr_hi": 93.75, "mb_hbm_ddr_pair": "HBM2와 서버용 DDR5",
        "mb_nvme_dir": "DDR 어느 것보다도 아래에 있습니다",   # NVMe Gen5 14 GB/s < DDR4 51.2 GB/s
        # GDDR6 864 / 307.2 = 2.81; GDDR7 1,792 / 51.2 = 35.0; GDDR7 1,792 > HBM2 1,555
        "mb_gddr_ddr_lo": 2.81, "mb_gddr_ddr_hi": 35,
        "mb_gddr_vs_hbm": "가장 빠른 GDDR7은 옛 세대인 HBM2보다 높습니다",
        # HBM3e / desktop DDR5 4,800 / 90-70 = 53-69 against HBM3 3,350 / 90-70 = 37-48
        "mb_hbm3e_dir": "더 커집니다",
        # HBM3 / desktop DDR5 3,350 / 90-70 = 37.2-47.9 (inside 30-50); / server DDR5 307.2-460.8 = 7.3-10.9 (< 15)
        "mb_30_50_desktop": "30–50배 범위 안에 듭니다", "mb_30_50_server": "30배에 한참 못 미칩니다",
        "mb_30_50_claim": "맞는 말이 아닙니다",   # GDDR6X / DDR5 1,008 / 90-70 = 11-14, outside 30-50
        # every row's fast memory (HBM, GDDR) is a figure not verified in this survey
        "mb_off_rows_ev": " / ".join([UNVERIFIED] * 8),
        "mb_f_even": 3.03,                    # 31.508 / (31.508 + 1,008) GB/s = 3.03 %
        "mb_13_fit": "다 들어가지 않으므로",   # 26e9 B > 24 GiB = 25,769,803,776 B
        # the RTX 4090's capacity and bandwidth are not verified in this survey
        "mb_4090_ev": UNVERIFIED, "mb_off_ev": UNVERIFIED,
        "mb_ex_m3_ev": UNVERIFIED, "mb_ex1_ev": UNVERIFIED,   # Apple M3 Ultra's 512 GiB and 819 GB/s
        "mb_ex_m3_dir": "낮습니다",           # 819e9 / 140e9 = 5.85 < 3.35e12 / 140e9 = 23.9 tokens/s
        "mb_ex2_first": 0.9,                  # 1 - f at f = 0.1
        "mb_ex_h100_mem_int4_fits": "들어가고",   # 35e9 x 1.2 = 42e9 B <= 85.9e9 B
        # AWQ: blocks 68,452,360,192 x (0.5 + 2.5 / 128) + head 2,101,346,304 + one row 16,384 = 37,664,502,944 B
        # against 35e9 B all in 4 bits: 7.6 % heavier
        "mb_ex_awq_pct": 7.6, "mb_ex_awq_dir": "조금 무겁습니다",
    },
    "book/llm-hardware/roofline-serving": {
        # prefill 2,087 FLOP/B > ridge 295 > decode 1.07 FLOP/B (see test_chapter_values)
        "rs_tab_pre": "연산", "rs_tab_dec": "메모리 대역폭",
        "rs_lat_ev": "문서 확인", "rs_lat_nccl_ev": "문서 확인",   # SGLang PR #2904; Triton-distributed issue #57
        "rs_nccl_dir": "더 커집니다",          # NCCL eager 19.19 us > one-shot 11.8 us at TP 8
        "rs_one_fit": "들어가지 않으므로",     # 131.4 GiB of weights > 72 GiB usable
        "rs_maxb2": 10,                       # (77,309,411,328 - 70,553,706,496) / 671,088,640 = 10.07
        # B* = P / BW: H200 989.4 / 4.8 = 206.1, B200 2,250 / 7.7 = 292.2, both < H100 989.4 / 3.35 = 295.3;
        # the largest is L40S 362.05 / 0.864 = 419.0
        "rs_crit_h200": 206, "rs_crit_b200": 292, "rs_crit_newer": "H100 SXM보다 작습니다",
        "rs_crit_max_name": "NVIDIA L40S", "rs_crit_max": 419,
        # 4-bit weights: B* / 4 = A100 153.0 / 4 = 38.3 ... L40S 419.0 / 4 = 104.8
        "rs_crit4_lo": 38, "rs_crit4_hi": 105,
        "rs_crit_tab_ev": UNVERIFIED,         # L40S and RTX 4090 rows
        # the stored CPU run: M = 1, 2, 4 at 10.69, 17.08, 35.48 GFLOP/s against the cache roof 22.66 GB/s x I
        # = 11.30, 22.55, 44.92 GFLOP/s
        # above the big-array roof 16.94 GB/s x I = 8.45, 16.86, 33.59, 66.66 GFLOP/s at M = 1, 2, 4, 8: M = 1, 2, 4
        "rs_m_above": "M = 1, 2, 4", "rs_m_below_cache": "그 아래에 있습니다",
        "ex_b_fits": "배치 16은 들어갑니다",    # max batch 18 at 2,256 tokens on two H100s
        # first step at 2,000 tokens: (139,006,083,072 + 16 x 2,000 x 327,680) / 2 / 3.35e12 = 22.312 ms + 1.485 ms
        # = 23.797 ms against 23.998 ms at 2,256 tokens
        "ex_tpot_first": 23.797, "ex_tpot_dir": "조금 더 빠릅니다",
        # FP8 on two H100s: 82.45 / 44.75 tokens/s = 1.84
        "ex8_gain": 1.84, "ex8_dir": "2배에 조금 못 미칩니다",
        # one card: 70,553,706,496 B of FP8 blocks and norms + 2,101,346,304 B of BF16 embedding and head
        # = 72,655,052,800 B; (77,309,411,328 - 72,655,052,800) / 1,342,177,280 = 3.47 -> 3 sequences
        "ex8_one": "FP8이면 한 장에도 들어갑니다", "ex8_one_maxb": 3,
        # one card, batch 3: (70,553,722,880 + 3 x 1,342,177,280) B / 3.35e12 = 22.263 ms -> 134.75 tokens/s;
        # two cards, batch 61: (70,553,722,880 + 61 x 1,342,177,280) / 2 / 3.35e12 = 22.750 ms + 160 x 10.92 us
        # = 24.497 ms -> 2,490 tokens/s, 1,245 per card
        "ex8_per_gpu_1": 135, "ex8_per_gpu_2": 1_245, "ex8_two_better": "두 장이 GPU 한 장당으로도 더 많이 만듭니다",
    },
    "book/llm-hardware/interconnects": {
        # x16 + x16 + x4 + x4 = 40 > 28 lanes; x8 + x8 + x4 + x4 = 24 <= 28
        "ic_lanes_over": "28레인을 넘습니다", "ic_lanes_split_fit": "맞춥니다",
        # 50 / 63.015 = 79.3 %, 55 / 63.015 = 87.3 %
        "ic_pct_where": "70–85% 범위의 위쪽 끝과 그 바깥에 걸칩니다",
        "ic_nv4_ev": UNVERIFIED, "ic_nv5_ev": UNVERIFIED,   # the catalog's NVLink figures
        "ic_ratio_rows_ev": " / ".join([UNVERIFIED] * 4),
        # 450 / 63.015 = 7.14, 900 / 63.015 = 14.28, 450 / 31.508 = 14.28, 900 / 31.508 = 28.56
        "ic_ratio_0": 7.14, "ic_ratio_1": 14.28, "ic_ratio_2": 14.28, "ic_ratio_3": 28.56,
        # exercise 2 (PCIe Gen4 x8, 15.754 GB/s): prefill 160 x 4,096 x 16,384 B / 15.754e9 = 0.6816 s of bandwidth
        # against 160 x 42.14 us = 6.74 ms of fixed costs: 99.0 %; decode 0.166 ms against 6.742 ms: 97.6 % fixed
        "ic_pre_bw_pct": 99, "ic_dec_lat_pct": 98,
        "ic_ex2_pre_comm_pct": 23,            # 0.688 s of 2.958 s
        "ic_ex2_pp_reason": "속도가 아니라 단순함입니다",   # TP 2 is faster in decode and in prefill
        "ic_ex2_lat_ev": "문서 확인",          # NVIDIA/nccl issue #1530
        "ic_ex2_ev": UNVERIFIED,              # the RTX 4090's capacity and bandwidth
    },
    "book/llm-hardware/parallelism": {
        # 8.75 s (140e9 x 2 / 32e9) x 8 x 989.4e12 FLOP/s / (6 x 70e9 FLOP per token) = 164,900 tokens
        "pa_t70_tokens": 164_900, "pa_t70_tok_ev": "분석 계산",
        "pa_ddp_sb_vs2": "같지만",              # N = 2: 2 x (1/2) x S / B = S / B exactly
        "pa_ddp_64_8": 1.125,                  # (2 x 63/64) / (2 x 7/8) = 1.96875 / 1.75
        # 70e9 x 20 B = 1.4e12 B > 85.9e9 B
        "pa_dp70_need": 1.4, "pa_dp70_fit": "H100 SXM 한 장에 들어가지 않습니다",
        # NVLink 4 row: not verified in this survey; PCIe rows and the compute row: computed
        "pa_tp_rows_ev": f"{UNVERIFIED} / 분석 계산 / 분석 계산 / 분석 계산",
        "pa_suggest_ev": UNVERIFIED,           # the L40S and RTX 4090 capacities
        "pa_ex3_lat_ev": "문서 확인",           # NVIDIA/nccl issue #1530
        "pa_ex3_ev": UNVERIFIED,               # H100 PCIe's capacity
        "pa_ex3_rank": "속도 순위를 뒤집는 것이 아니라",   # TP 8 faster in decode (15.6 < 70.5 ms) and prefill
    },
}

#: Sentences the audit found wrong or unsupported and replaced; none may come back.
REMOVED = {
    # NVLink 4 / PCIe Gen5 is 7.1x, NVLink 4 / InfiniBand NDR 9x: not an order of magnitude
    "book/llm-hardware/interconnects": ["다른 연결보다 한 자릿수 넘게", "사실상 쓸 수 없습니다", "현실적인 실측"],
    # H200 (206) and B200 (292) have a smaller critical batch than H100 (295)
    "book/llm-hardware/roofline-serving": ["최신 GPU일수록 커집니다", "몇 개밖에", "실측 상한선", "실측 루프라인"],
    # HBM2 / server DDR5 is 5x; GDDR6 / server DDR5 2.8x; GDDR7 is above HBM2
    "book/llm-hardware/memory-bandwidth": ["한 자릿수 이상의\n간격", "DDR보다는 여전히 한 자릿수 위", "들어가지도 않습니다",
                                           "금세 전체를 지배합니다"],
    # no step time was computed
    "book/llm-hardware/parallelism": ["통째로 잡아먹습니다"],
}

CASES = [(page, name, exp) for page, table in EXPECTED.items() for name, exp in table.items()]


@pytest.mark.parametrize("page, name, expected", CASES, ids=[f"{p.split('/')[-1]}-{n}" for p, n, _ in CASES])
def test_llm_verdict(page, name, expected):
    assert_glued(page, name, expected)


_TABLE_ONLY = {"mb_off_rows_ev", "ic_ratio_rows_ev", "pa_tp_rows_ev", "rs_tab_pre", "rs_tab_dec", "pa_suggest_ev",
               "rs_crit_tab_ev"}   # glued for this test from a table or a caption the cell renders


@pytest.mark.parametrize("page", sorted(EXPECTED), ids=lambda p: p.split("/")[-1])
def test_every_glued_verdict_is_shown(page):
    missing = unshown_verdicts(page, EXPECTED[page], exempt=_TABLE_ONLY)
    assert not missing, f"{page} glues {missing} but its prose does not show them"


@pytest.mark.parametrize("page", sorted(REMOVED), ids=lambda p: p.split("/")[-1])
def test_wrong_verdicts_stay_removed(page):
    text = (ROOT / f"{page}.md").read_text(encoding="utf-8")
    back = [s for s in REMOVED[page] if s in text]
    assert not back, f"{page} types again what the audit found wrong: {back}"
