"""Verdicts of the Week 5 pages audited sentence by sentence for issue 21 (deliverables 2 and 3), second batch.

The pages: week05/big-picture, spec-sheets, comparison-table, software-path, worked-example-1, worked-example-2,
hardware, index, study-guide, measurements. Where their prose says which is faster, what fits, what dominates,
which way a comparison goes or how many times ("몇백 배", "대부분", "절반"), the word is glued from a comparison
in the page and asserted here. Verdicts these pages glued before this audit and that test_chapter_values.py already
asserts are not repeated. Every expected value is worked by hand in the comment (catalog figures and reference runs
copied as literals), never computed with xpucalc. Numbers are compared as the page shows them.
"""
from __future__ import annotations

import pathlib
import re

import pytest
from _toc import assert_glued, unshown_verdicts

ROOT = pathlib.Path(__file__).resolve().parents[2]

# page -> {glue name: expected}: a str (exact text) or a number (the first number shown, rounded as shown)
EXPECTED: dict[str, dict[str, object]] = {
    "book/week05/big-picture": {
        # H100 SXM BF16 as printed: 2:4 sparse, FLOP/s; TPU v5e BF16: dense, chip, FLOP/s; 288V NPU: INT8, OP/s
        "hl_conds_differ": "서로 다릅니다",
        "hl_h100_cond": "2:4 희소성을 전제한 BF16 값",
        "hl_v5e_cond": "칩 하나의 BF16 값",
        "hl_npu_cond": "정수(INT8) 연산 수",
    },
    "book/week05/spec-sheets": {
        # 1,979 / 2 = 989.5 against the catalog's 1,978.9 / 2 = 989.45: within the 0.25 a rounded 1,979 allows
        "h_halved_vs_dn": "반올림 차이일 뿐이고",
        "r4090_words": "두",                              # 330.3 / 165.2 = 2.0
        # older Google page: Pod 50.63 PFLOP/s / 256 = 197.77 TFLOP/s > 197 printed per chip; rounded 198,
        # cut to an integer 197. INT8: 100 PetaOPS / 256 = 390.6 TOPS < 393: the other way round
        "pod_bf16_per_chip": 197.8, "pod_bf16_cmp": "보다 큽니다",
        "pod_bf16_round": "칩당 표기는 이 값을 반올림한 값(198)이 아니라 소수점 아래를 버린 값(197)과 같습니다",
        "pod_int8_per_chip": 390.6, "pod_int8_cmp": "보다 작습니다", "pod_int8_dir": "반대입니다",
        "pod_scope_words": "몇백 배",                     # 256 chips
        # 800 GiB/s = 858.99 GB/s against 819 GB/s: 4.9 % larger
        "conflict_pct": 4.9, "conflict_dir": "큽니다",
        # nvidia-smi 81,559 MiB = 79.6 GiB < 80 GiB
        "h_rt_dir": "조금 적습니다",
        # I = 102.32 FLOP/B below every ridge: 989.4 / 3.35 = 295, / 0.9 = 1,099, / 0.128 = 7,730
        "ss_bw_same": "세 줄 모두 '대역폭 제한'으로 판정되지만",
        # INT8 / 16-bit dense: H100 1,979 / 989.4 = 2.0, A100 624 / 312 = 2.0, TPU v5e 393 / 197 = 1.995
        "ss_int8_all2": "세 장치 모두 약 2배이지만,",
        "npu_platform_check": "같습니다",                # CPU 5 + GPU 67 + NPU 48 = 120 TOPS, the sheet's 120
    },
    "book/week05/comparison-table": {
        # table 1: 16 of 33 cells without a number (items 2, 4, 8, 9 x 3 = 12; TPU power unpublished; 288V INT8,
        # memory and power not verified) -> 17 / 33 = 51.5 % filled: more than half, not "대부분"
        "docs_missing": 16, "docs_filled_pct": 52, "docs_filled_words": "절반 남짓",
        # Q_min 2,623,488 B against 80 GiB, 16 GiB and 32 GB
        "docs_fit_all": "세 장치 모두 공통 예제를 메모리에 올리는 데 문제가 없고",
        # 42.41 GB / 1.073741824 = 39.498 -> 39.50 GiB, the runtime printed 39.49; bytes printing as both:
        # [42.405e9, 42.415e9) and [39.485, 39.495) GiB = [42.396e9, 42.407e9) overlap in [42.405e9, 42.407e9)
        "ct_gib_same": "다릅니다",
        "ct_gib_why": "두 출력을 모두 만족하는 바이트 수가 있으므로, 런타임이 반올림 전의 바이트 수에서 두 단위를 따로 계산했다고 "
                      "보면 설명됩니다",
        "ct_v5e_ok": "허용오차 안에 들었습니다",            # all eight TPU runs passed the FP64 check
    },
    "book/week05/software-path": {
        # A100 BF16 eager M = 128: floor 1.69 us of a 62.5 us call (x 37): the ideal time is under 3 %
        "sp_floor_pct": 3, "sp_fixed_words": "대부분입니다",
    },
    "book/week05/worked-example-1": {
        # A 200 TFLOP/s, 1 TB/s; B 100 TFLOP/s, 2 TB/s
        "we1_strengths": "A는 연산이 강하고 B는 데이터를 나르는 능력이 강합니다",
        "we1_p_half": "그 절반인",                          # 100 / 200 TFLOP/s
        # work 1 (I = 10 < 50 < 200): A 100 ms, B 50 ms, both bandwidth-bound; work 2 (I = 1,000 > 200): A 500 ms,
        # B 1,000 ms, both compute-bound
        "we1_bound_1": "두 장치 모두 대역폭에 묶입니다", "we1_win_1": "B가", "speed_1": 2,
        "we1_bound_2": "두 장치 모두 연산에 묶입니다", "we1_win_2": "A가", "speed_2": 2,
        "we1_a_in_2": "빠르고", "we1_a_in_1": "느립니다",
        "we1_cross_other": "두 분기점 어느 쪽도 아니고",   # 100 is neither 50 nor 200
        # below 50: 2 x I against 1 x I (B twice A); above 200: 200 against 100 TFLOP/s (A twice B)
        "we1_low_lead": "B가", "we1_high_lead": "A가",
        "fits_B": "들어갑니다",                             # glued before the audit, asserted here: 8 GB <= 32 GB
    },
    "book/week05/worked-example-2": {
        # 가: device 4, copies 9, host 2 ms = 15 ms, compile 30 s; 나: 7, 2, 2 = 11 ms, compile 5 s
        "we2_dev_win": "가가", "d_dev": 3,                  # 7 - 4
        "we2_xfer_lose": "가가", "d_xfer": 7,               # 9 - 2
        "we2_batch_win": "나가", "d_total": 4,              # 15 - 11
        "we2_mix_win": "가가",                              # 4 ms against 11 ms: 2.75x
        "we2_first_slow": "가가", "first_ratio": 6,         # 30.015 / 5.011 = 5.99
        "we2_steady_slow": "가가",                          # 15 / 11 = 1.36
        "we2_both_longer": "가는 컴파일도 길고 배치당 시간도 길기",
    },
    "book/week05/hardware": {
        "tc_chip": 528, "tc_chip_words": "수백 개",          # 132 SMs x 4 Tensor Cores
        # W 2,097,152 B one way over PCIe Gen5 (128 / 2 = 64 GB/s) = 32.8 us against H100 HBM 3.35 TB/s = 0.626 us
        "pcie_vs_hbm": 52, "pcie_vs_hbm_dir": "오래",       # 3,350 / 64 = 52.3
        # ICI: 400 GB/s bidirectional now, 1,600 Gbps = 200 GB/s in the other revision: exactly one direction
        "ici_one_way_fits": "그대로 맞습니다",
        "ici_reading": "문서가 스스로 어긋나는 사례라기보다 방향을 적지 않은 표기로 보는 편이 자연스럽습니다",
    },
    "book/week05/index": {
        "q2_p_words": "그 절반인",                          # 100 / 200 TFLOP/s
        "q2_who": "B가 A보다",                              # 1 GB at 1 FLOP/B: A 1 ms, B 0.5 ms
        "r128_verdict": "분기점 아래라서 장치 A에서는 대역폭이 시간을 정하고",   # I = 102.32 < 200
        "r128_bound": "대역폭",                             # 2.623 us of memory > 1.342 us of compute
    },
    "book/week05/study-guide": {
        # W 1,048,576 of 1,311,744 elements at M = 128 (79.9 %), of 1,051,648 at M = 1 (99.7 %)
        "sg_w_most": "대부분", "sg_w_share_128": 79.9,
        # M = 1: I = 1 < 50: both bandwidth-bound; B's bandwidth 2 / 1 TB/s
        "sg_both_1": "두 장치 모두에서 대역폭에 묶입니다", "sg_bw_ab": 2,
        "sg_a_bound_128": "A는 아직 대역폭에 묶여 있지만",   # I = 102.32 < A's ridge 200
        "sg_near_tie": "두 장치가 거의 비기므로",            # 2.684 / 2.623 - 1 = 2.3 % < 5 %
        "sg_cross_other": "그 둘 가운데 하나가 아니라",       # 100 is neither 50 nor 200
        "sg_cross_formula": "같습니다",                      # min(P) / min(BW) = 100 TFLOP/s / 1 TB/s = 100
        # decode of an 8B BF16 model: 2N / 2N B = 1 FLOP/B; lowest real BF16 ridge RTX 5090 209.5 / 1.792 = 117
        "sg_ridge_min": 117, "sg_ridge_min_dev": "NVIDIA GeForce RTX 5090", "sg_decode_vs_ridge": "한참 낮습니다",
        # compute bound / bandwidth bound >= 153 (A100 80GB 312 / 2.039): busy at most 1 / 153 -> idle 99.35 %
        "sg_idle": 99.3,
        "sg_dec_bound": "병목이 대역폭에 있으므로 토큰 간 지연(TPOT)은 TFLOP/s가 아니라 TB/s가 정합니다",
        # labels the closing section names: TPU v5e spec 문서 확인; H100 printed figures checked in a named copy;
        # 288V figures not verified; H100's SM count (132) read in NVIDIA's Hopper blog post (nvidia-hopper-blog-copy);
        # the reference runs measured on 2026-10-19
        "sg_v5e_ev": "문서 확인", "sg_h100_ev": "문서 확인",
        "sg_288v_ev": "이번 조사에서 미확인", "sg_sm_ev": "문서 확인",
        "sg_ref_a100": "NVIDIA A100-SXM4-40GB(PyTorch 2.11.0+cu130, CUDA 13.0)", "sg_ref_tpu": "TPU v5 lite(JAX 0.7.2)",
        "sg_ref_date": "2026-10-19", "sg_ref_ev": "실측",
    },
    "book/week05/measurements": {
        "n_per_dev": "여덟",                                # 2 precisions x 2 paths x 2 batch sizes
        # BF16 M = 128 first calls / device: A100 eager 2,850, compiled 3,183; TPU eager 405.04, jit 1,171
        "sum_first_ratio": 405,
        "sum_fixed_words": "대부분은",                     # measured / floor >= 37: the floor is <= 2.7 %
        # reading 1: A100 0.0604 / 0.0625 = 0.966 (-3.4 %), TPU 0.1299 / 0.1619 = 0.802 (-19.8 %)
        "r1_cut_max": 20,
        "r1_floor_pct": 3, "r1_fixed_words": "거의 전부가",  # 1 / 37 = 2.7 %
        "r1_match": "맞아떨어지는",                         # 0.802 and 2,103,296 / 2,623,488 = 0.802
        # reading 2: added time / device: A100 0.1785 / 0.0625 = 2.86, TPU 0.2869 / 0.1619 = 1.77, both > 1
        "r2_verdict": "두 장치 모두 전송으로 늘어난 시간이 장치 상주 시간보다 깁니다",
        # reading 3: 16 ratios from 192 (two orders) to 30,019
        "r3_all_orders": "모든 조건에서 맞습니다",
        # A100 compiled FP32 M = 128 first call 4,394.837 ms against the other three 426-758 ms: 5.8-10.3x;
        # start-up (4,394.8 - 758) / 4,394.8 = 82.8 % to (4,394.8 - 426) / 4,394.8 = 90.3 %
        "r3_arest_x": "5.8–10.3", "r3_start_share": "83–90",
        "r3_still": "자릿수가 다릅니다",                     # 430 / 0.1352 = 3,183
        # reading 4: TPU eager 0.4913 ms -> jit 0.1619 ms, 3.03x faster; A100 compiled 0.1352 ms against eager
        # 0.0625 ms, 0.0727 ms (73 us) more: longer than the eager call itself
        "r4_tspeed": 3.03, "r4_t_dir": "빨라졌습니다", "r4_t_cut_dir": "감소",
        "r4_a_contrast": "반대로", "r4_a_more": "더 걸렸습니다", "r4_adiff_us": 73, "r4_adiff_cmp": "보다도 깁니다",
        "r5_all": "모두 통과",                              # every run's max error within its tolerance
        # the source's rates re-divided: 16 of 16 rows agree within the two roundings
        "match_all": "모든 행에서",
        "r5_meaning": "두 가속기 모두 각 자료형의 정밀도 안에서 같은 수학적 결과를 냈다는 뜻입니다",
        # floors at BF16 M = 128: A100 compute 0.86 us < memory 2,623,488 / 1.555e12 = 1.69 us; TPU v5e 1.36 < 3.20 us
        "fl_bound": "둘 다 메모리 항이 정합니다",
    },
}


CASES = [(page, name, exp) for page, table in EXPECTED.items() for name, exp in table.items()]


@pytest.mark.parametrize("page, name, expected", CASES, ids=[f"{p.split('/')[-1]}-{n}" for p, n, _ in CASES])
def test_week05_verdict(page, name, expected):
    assert_glued(page, name, expected)


# verdicts a table note shows (the note is built from the same variable that is glued), not the prose
_IN_TABLE_NOTES = {"ss_bw_same", "ss_int8_all2"}


@pytest.mark.parametrize("page", sorted(EXPECTED), ids=lambda p: p.split("/")[-1])
def test_every_glued_verdict_is_shown(page):
    missing = unshown_verdicts(page, EXPECTED[page], exempt=_IN_TABLE_NOTES)
    assert not missing, f"{page} glues {missing} but its prose does not show them"


# Sentences the audit replaced because the computation contradicts them or says less; none may come back.
_RETIRED = {
    "book/week05/comparison-table": ["표의 대부분을 채울 수 있고", '"NVIDIA A100-SXM4-40GB (실측)"', "표 2(실측)"],
    "book/week05/spec-sheets": ["자체가 반올림된 값이라는 뜻입니다", "INT8도 같습니다"],
    "book/week05/measurements": ["이 조건만 자릿수가 다릅니다", "로 거의 줄지 않습니다", "위의 배수는 대부분"],
    "book/week05/study-guide": ["그만큼 병목은 연산 쪽으로 옮겨 갑니다"],
}


@pytest.mark.parametrize("page", sorted(_RETIRED), ids=lambda p: p.split("/")[-1])
def test_retired_sentences_stay_out(page):
    text = (ROOT / f"{page}.md").read_text(encoding="utf-8")
    back = [s for s in _RETIRED[page] if s in text]
    assert not back, f"{page} types again what its numbers contradict: {back}"


_LABEL_IN_HEADER = re.compile(r"\((?:실측|문서 확인|분석 계산|이번 조사에서 미확인|미공개|아직 미측정|CPU 동작 확인|시뮬레이션)\)")


@pytest.mark.parametrize("page", sorted(EXPECTED), ids=lambda p: p.split("/")[-1])
def test_no_table_header_types_a_label(page):
    """Table headers and comparison-table columns carry no typed label: a column holds figures of several labels,
    each cell shows its own, and a caption's label is computed (evidence.weakest) where one is shown."""
    text = (ROOT / f"{page}.md").read_text(encoding="utf-8")
    typed = []
    for m in re.finditer(r"(?:ComparisonTable|Table)\(\[([^\]]*)\]", text):
        typed += _LABEL_IN_HEADER.findall(m.group(1))
    for m in re.finditer(r"^(?:[A-Z]\w*, )+[A-Z]\w* = (.*)$", text, re.M):   # column names assigned in one line
        typed += _LABEL_IN_HEADER.findall(m.group(1))
    assert not typed, f"{page} types an evidence label in a table header: {typed}"
