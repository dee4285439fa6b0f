"""Verdicts of the pages audited sentence by sentence for issue 21 (deliverable 2).

The pages: llm-hardware/compute-budget, gpu-specs, precision-quantization, frameworks-checklist and
week05/what-fast-means, without-hardware, misconceptions, exercises. Where their prose says which is faster,
what fits, how many cards are needed, what dominates or which way a comparison goes, the word is glued from a
comparison in the page and asserted here. Every expected value is worked by hand in the comment (catalog
figures copied as literals), never computed with xpucalc. Numbers are compared as the page shows them.
"""
from __future__ import annotations

import pathlib
import re

import pytest
import yaml
from _toc import assert_glued, unshown_verdicts

ROOT = pathlib.Path(__file__).resolve().parents[2]

# page -> {glue name: expected}: a str (exact text) or a number (the first number shown, rounded as shown)
EXPECTED: dict[str, dict[str, object]] = {
    "book/week05/what-fast-means": {
        # Llama 3 8B BF16 on one H100 SXM, 4K context: 4.64 ms and 215 tokens/s at batch 1, 22.75 ms and 5,011
        # tokens/s at batch 114 (see test_values_models): throughput up, latency up
        "wf_thr_dir": "오르지만", "wf_itl_dir": "늘어납니다",
        # batch 512 x 4,096 tokens x 131,072 B = 274.9 GB of KV alone > 85.9 GB (80 GiB)
        "wf_grid_fit": "장치 용량보다 커서 들어가지 않으므로",
        # highest throughput at the largest batch, lowest latency at batch 1
        "wf_best_same": "같지 않습니다",
        # batch 1: 2N = 16.06 GFLOP / 989.4 TFLOP/s = 0.016 ms of compute against 4.64 ms of reading
        "wf_b1_bound": "대역폭으로",
        # X: 4 $/h / (100 x 3,600) = 1.11e-5 $; Y: 2 / (25 x 3,600) = 2.22e-5 $ per request
        "wf_cost_verdict": "Y가 더 비쌉니다",
        "wf_e_ratio": 1.5, "wf_e_verdict": "더 큽니다",   # half the power x three times the time = 1.5
    },
    "book/week05/misconceptions": {
        "mc_fits": "들어갑니다",                            # 8 GB resident <= A's 16 GB
        # worked example 2: device 4 ms (가) vs 7 ms (나); a batch 4+9+2 = 15 ms vs 7+2+2 = 11 ms
        "mc_na_dev": 7, "mc_dev_win": "가가", "mc_batch_win": "나가",
        "mc_comp_verdict": "느렸습니다",                    # compiled 0.1352 ms > eager 0.0625 ms
        "mc_slower": 0.073,                                 # 0.1352 - 0.0625 = 0.0727
        # 400 W / 100 req/s = 4 J, 250 W / 50 req/s = 5 J: the lower-power system spends more per request
        "mc_e_verdict": "전력이 낮은 나가 요청 하나에는 에너지를 더 씁니다",
        # 800 GiB/s = 800 x 1.073741824 = 858.99 GB/s against 819 GB/s: 4.9 % apart
        "mc_gib_verdict": "문서 스스로 어긋납니다",
    },
    "book/week05/exercises": {
        "ex1_dense_ratio": 1,                               # 400 TOPS sparse / 2 = 200 against 200 TFLOP/s dense
        "ex1_two_verdict": "사라지고",
        # 24 GB needed at once: A holds 16 GB, B 32 GB
        "ex2_b_fit": "그보다 많이 남습니다", "ex2_a_choice": "고를 수 없습니다", "ex2_a_fit": "들어가지 않으므로",
        "ex3_claim": "틀린 주장입니다",                     # 나 5 J > 가 4 J per request
        "ex3_p_dir": "낮지만",                              # 250 W / 400 W = 62.5 %
        "ex3_t_ratio": 50,                                  # 50 / 100 req/s
    },
    "book/llm-hardware/compute-budget": {
        # Mixtral 8x7B: 12,879,925,248 active of 46,702,792,704 = 27.6 % < 1/3
        "cb_moe_third": "3분의 1에도 못 미칩니다",
        # batch 1 on H100: compute 989.4e12 / 140e9 = 7,067 tokens/s against memory 3.35e12 / 140e9 = 23.9
        "cm_ratio": 295, "cb_b1_bound": "메모리 한계",
        # 32K: Llama 2 7B 6 x 32 x 4,096 x 32,768 / (6 x 6,738,415,616) = 63.7 %; Mixtral 32 x 4,096 x 32,768 /
        # 12,879,925,248 = 33.3 %: smaller, because its active N is larger
        "att32_moe": 33, "cb_moe_att_dir": "더 작은데", "cb_moe_act_dir": "더 많기",
        # rule s / (6 x 8,192) against 32 x 4,096 x s / 6,738,415,616: ratio 6,442,450,944 / 6,738,415,616 = 0.956
        "cb_att_gap": 4, "cb_att_overlap": "거의 겹치는",
        # example 3: 43,651,719,168 / 42e9 = 1.0393 -> 3.9 % off the 6NT rule, with N = 6.74e9 < 7e9
        "cb_f3_pct": 3.9, "cb_n7_dir": "조금 적은", "cb_f3_verdict": "거의 같은 답이 나옵니다",
        # Llama 2 70B: 6 x 70e9 x 2e12 / (1,720,320 x 3,600 x 312e12) = 8.4e23 / 1.93226e24 = 43.47 % > 42.84 %
        "cb_mfu_round": 43.5, "cb_mfu_round_dir": "조금 더 높게 나오는데", "cb_n_l2_dir": "약간 작기",
        # Llama 3.1 405B: reported 38-43 % against implied (with attention) 36.0 %; 8B 15.8 % and 70B 27.4 % lower
        "cb_405_impl": 36, "cb_405_dir": "높게 나옵니다", "cb_small_dir": "더 낮은",
        # 6 x 13e9 x 4e5 / (64 x 312e12) = 3.12e16 / 1.9968e16 = 1.5625
        "cb_ex_implied_p": 1.56, "cb_ex_dir": "넘습니다",
    },
    "book/llm-hardware/gpu-specs": {
        # H100 PCIe against SXM: 756.5 vs 989.4 TFLOP/s, 2.0 vs 3.35 TB/s, 350 vs 700 W
        "gs_pcie_lower": "모두 SXM보다 낮습니다",
        "gs_a100_fp8": "FP8 연산 유닛이 없습니다",        # Ampere has no FP8 Tensor Core
        "gs_mi_same": "같은 숫자입니다",                   # MI300X FP16 sparse = FP8 dense = 2,614.9 TFLOP/s
        # M = 1 FP16: 2,097,152 FLOP / 2,103,296 B = 0.997 against the lowest ridge, RTX 5090 209.5 / 1.792 = 117
        "gs_i_dec": 1, "gs_ridge_min": 117, "gs_dec_verdict": "어느 장치든 메모리 대역폭이 먼저 막힙니다",
        # H200 141 GiB > 131.4 GiB of weights, but 126.9 GiB usable < 132.7 GiB of weights + KV
        "gs_h200_cap_dir": "가중치 자체보다는 크지만", "gs_h200_fit": "들어가지 않습니다",
        # 1,792 / 864 GB/s = 2.074; 343.7 / 165.7 tokens/s = 2.074: both decode at batch 1 are memory-bound
        "gs_ex_speed_ratio": 2.07, "gs_ex_ratio_verdict": "같습니다",
        "gs_ex_bound": "이 대역폭 차이가 체감 속도를 정합니다",
        "gs_ex_small": "둘 다 실제보다 작습니다",          # 4.02 GB and 4.00 GB < 5.73 GB
        # FP16 dense with FP32 accumulation: L40S 362.05 > RTX 5090 209.5 TFLOP/s
        "gs_ex_fp16_order": "L40S가 더 높고",
    },
    "book/llm-hardware/precision-quantization": {
        # FP32 max (2 - 2^-23) x 2^127 = 3.4028e38, BF16 (2 - 2^-7) x 2^127 = 3.3895e38: 0.39 % apart
        "pq_bf16_max_pct": 0.4, "pq_bf16_max_dir": "거의 같고",
        # unit roundoff BF16 2^-8 / FP16 2^-11 = 8 ("8배 큽니다"); FP16 max (2 - 2^-10) x 2^15 = 65,504
        "u_ratio": 8, "fp16_max": 65_504,
        "pq_fp4_rule": "규칙이 여기서도 이어집니다",        # B200 FP4 9 PFLOP/s / FP8 4.5 PFLOP/s = 2
        "pq_all4_vs_file": "이 파일과 어긋납니다",          # 3.50 GB vs 3.89 GB
        "pq_ft7_80": "부족합니다",                          # 16 x 7e9 = 112 GB > 80 GiB = 85.9 GB
        # full fine-tuning of Llama 2 7B: 138,416,291,840 B / 6,738,415,616 = 20.54 B per parameter: the page
        # said "16-20 x N 범위 안", which it is not
        "pq_ft7_bpp": 20.5, "pq_ft7_range": "16–20 × N 범위를 조금 넘고",
        "pq_lora7_24": "24 GB 카드 한 장에 들어갑니다",    # 14.94 GB
        # 70B LoRA 147.68 GB / 85.9 GB = 1.72 -> 2 H100s
        "pq_lora70_cards": 2, "pq_lora70_verdict": "여러 장이 필요합니다",
        # folk formula 80 x 8,192 x 2 = 1,310,720 B/token against 2 x 80 x 8 x 128 x 2 = 327,680: 4x
        "pq_folk_x": 4,
        # Llama 2 13B, 4,096 tokens x 4: KV 2 x 40 x 40 x 128 x 4,096 x 4 x 2 = 13.42 GB; FP16 weights 26 GB > 24 GB;
        # 4-bit 6.89 + 13.42 = 20.31 GB <= 24 GB; 8K x 4 or 4K x 8: 6.89 + 26.84 = 33.73 GB > 24 GB
        "pq_ex_fp16": "가중치만으로 24 GB를 넘고", "pq_ex_4bit": "들어갑니다",
        "pq_ex_kv_vs_w": "KV 캐시가 가중치보다 크다", "pq_ex_more": "다시 넘치므로",
    },
    "book/llm-hardware/frameworks-checklist": {
        # the x1.5 rule against the counted memory: 20.22 > 14.94, 5.64 > 5.33, 211.66 > 147.68, 57.64 > 46.08 GB
        "ck_rule_dir": "네 경우 모두 규칙이 계산보다 크므로, 그 차이는",
        # 13B on 24 GiB cards (25.77 GB): 31.2 GB and 39 GB -> 2 cards each; 260 GB -> 11 cards
        "ck_ex_ab": "(가)와 (나)는 여러 장에 나눠 담을 수 있지만", "ck_ex_c_n": 11, "ck_ex_c": "네 장으로 불가능합니다",
        # (나) as QLoRA by the same rule: 13e9 x 0.5 x 1.5 = 9.75 GB <= 25.77 GB
        "ck_ex_qlora": 9.75, "ck_ex_qlora_fit": "한 장에 들어갑니다",
    },
}


CASES = [(page, name, exp) for page, table in EXPECTED.items() for name, exp in table.items()]


@pytest.mark.parametrize("page, name, expected", CASES, ids=[f"{p.split('/')[-1]}-{n}" for p, n, _ in CASES])
def test_audited_verdict(page, name, expected):
    assert_glued(page, name, expected)


@pytest.mark.parametrize("page", sorted(EXPECTED), ids=lambda p: p.split("/")[-1])
def test_every_glued_verdict_is_used(page):
    missing = unshown_verdicts(page, EXPECTED[page], exempt={"mc_fits"})
    assert not missing, f"{page} glues {missing} but its prose does not show them"


_KOREAN_COUNT = {"다섯": 5, "여섯": 6, "일곱": 7, "여덟": 8}


def test_without_hardware_counts_the_labs():
    """'실습 노트북은 여섯 개' and the list under it must match the labs in the table of contents."""
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))
    labs = sorted(set(re.findall(r"labs/\d\d_\w+", str(toc))))
    text = (ROOT / "book/week05/without-hardware.md").read_text(encoding="utf-8")
    word = re.search(r"실습 노트북은 (\S+) 개", text).group(1)
    assert _KOREAN_COUNT[word] == len(labs), f"the page says {word} 개, the table of contents has {len(labs)}"
    listed = sorted(set(re.findall(r"</(labs/\d\d_\w+)>", text)))
    assert listed == labs, f"the page lists {listed}, the table of contents {labs}"
