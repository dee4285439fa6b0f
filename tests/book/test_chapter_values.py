"""Chapters check what they print: key glued values against numbers worked by hand or taken from a source.

Each page is executed once per test session (``_toc.executed``, shared with test_chapters.py) and its
``glue(name, value)`` outputs are read back. For every chapter, ``EXPECTED`` holds the numbers a reader
would check first: the source's table figures, the worked examples' results and the corrected errata
(design §7). The expectation is never computed with xpucalc: the derivation is in the comment.

A number is compared as the page shows it: the glued text must carry the expected value rounded to the
digits it displays (``"11.5"`` passes for 11.52, ``"11.6"`` does not). Besides the table, invariants hold
over every glued value of every page: no utilisation, MFU or share above 100 %, no negative number, and
no printed "MFU = … %" above 100.
"""
from __future__ import annotations

import re

import pytest
from _toc import assert_glued, executed, glued_texts, is_executable, toc_files
from _toc import numbers_shown as _numbers, shows as _shows

PAGES = [e for e in toc_files() if not e.startswith("labs/") and is_executable(e)]

# page -> {glue name: expected}. expected is a str (exact text), a number (the first number shown),
# a (number, unit) pair (the unit must follow the number) or a list (every number shown, in order).
EXPECTED: dict[str, dict[str, object]] = {
    "book/week05/index": {
        "q1_total_factor": 4,          # 2 (2:4 sparsity) x 2 (INT8 vs FP16)
        "q2_speedup": 2,               # a bandwidth-bound job: 2 TB/s / 1 TB/s (times not shown: worked example 1 asks them)
        "ridge_a": 200,                # 200 TFLOP/s / 1 TB/s
        "r128_I": 102.32,              # 268,435,456 FLOP / 2,623,488 B = 102.3209
        "r128_tm": (2.623, "µs"),      # 2,623,488 B / 1 TB/s
        "r128_share": 51.2,            # 102.32 TFLOP/s of 200 = 51.16 %
    },
    "book/week05/common-example": {   # source §2.2 table
        "F_128": 268_435_456,          # 2 x 128 x 1024 x 1024
        "elems_128": 1_311_744,        # 128x1024 + 1024x1024 + 1024 + 128x1024
        "Q_128_2": 2_623_488,          # x 2 B
        "Q_128_4": 5_246_976,          # x 4 B
        "I_128_4": 51.16,              # 268,435,456 / 5,246,976
        "F_1": 2_097_152,              # 2 x 1 x 1024 x 1024
        "elems_1": 1_051_648,          # 1024 + 1024x1024 + 1024 + 1024
        "Q_1_2": 2_103_296,
        "I_1_4": 0.50,                 # 2,097,152 / 4,206,592 = 0.4985
        "Q_ratio": 0.802,              # 2,103,296 / 2,623,488 = 0.80172
        "W_share_1": 99.7,             # 1,048,576 / 1,051,648 = 99.71 %
        "W_share_128": 79.9,           # 1,048,576 / 1,311,744 = 79.94 %
        "Q_128_2_mib": (2.5, "MiB"),   # 2,623,488 / 2**20 = 2.502
    },
    "book/week05/hardware": {
        "mxu_macs": 16_384,            # one 128 x 128 MXU
        "chip_macs": 65_536,           # 4 MXUs x 16,384
        "tc_macs": 512,                # H100 Tensor Core: 2 x A100's 256 dense FP16 FMA per clock
        "tc_ratio": 128,               # 65,536 / 512
        "tc_ratio_words": "백여 배",
        "hbm_v5e": (819, "GB/s"),      # Google's TPU v5e table (design §7.1)
    },
    "book/week05/misconceptions": {
        "mc_tc_ratio": 128,            # 4 x 128 x 128 / 512
    },
    "book/week05/software-path": {    # source §11.3 first call vs steady state
        "a100_ratio": 30_019,          # 4,394.837 ms / 0.1464 ms = 30,019.4
        "tpu_ratio": 6_089,            # 836.696 / 0.1374 = 6,089.5 (shown without decimals)
    },
    "book/week05/worked-example-1": {  # source §7: A 200 TFLOP/s 1 TB/s 16 GB, B 100 TFLOP/s 2 TB/s 32 GB
        "ridge_A": 200, "ridge_B": 50,
        "t_1A": 100, "t_1B": 50,       # 100 GB / 1 or 2 TB/s, ms (compute 5 and 10 ms)
        "t_2A": 500, "t_2B": 1_000,    # 1e14 FLOP / 200 or 100 TFLOP/s, ms
        "roof_1A": 10, "roof_1B": 20,  # 1 or 2 TB/s x I = 10
        "roof_2A": 200, "roof_2B": 100,
        "bound_1A": "대역폭", "bound_2B": "연산",
        "cross": 100,                  # A's slope 1 TB/s x I meets B's flat 100 TFLOP/s
        "cross_roof": 100,
        "fits_A": "들어갑니다",        # 8 GB resident <= 16 GB
        "reuse": 12.5,                 # 100 GB moved / 8 GB resident
        # quiz: work 2 on B: 1e14 FLOP / 100 TFLOP/s = 1,000 ms vs 100 GB / 2 TB/s = 50 ms -> 20x, compute-bound;
        # I = 1e14 / 100e9 = 1,000 FLOP/B = 20 x B's ridge 50
        "quiz_ms": 1_000, "quiz_cm_ratio": 20, "quiz_bound": "연산이 병목", "quiz_i_over_ridge": 20,
    },
    "book/week05/worked-example-2": {  # source §8: 가 4+9+2 ms, 30 s; 나 7+2+2 ms, 5 s
        "batch_ga": 15, "batch_na": 11,
        "first_ga": 30.015, "first_na": 5.011,
        "mix_ratio": 2.75,             # 11 / 4
        "steady_ratio": 1.36,          # 15 / 11 = 1.364
        "be_equal": 5_000,             # §15.3 Q4: (30 - 5) s / (20 - 15) ms
        "be_lower": 5_001,
        "never": "없습니다",
    },
    "book/week05/what-fast-means": {   # exercise: $4/h at 100 req/s vs $2/h at 25 req/s
        "price_ratio": 0.5, "rps_ratio": 0.25,
        "cost_ratio": 2,               # (2 / 25) / (4 / 100)
    },
    "book/week05/measurements": {      # source §11.3 table
        "r1_aratio": 0.97,             # 0.0604 / 0.0625 = 0.9664
        "r1_tratio": 0.802,            # 0.1299 / 0.1619 = 0.8024
        "r1_qratio": 0.802,            # 2,103,296 / 2,623,488
        "r2_axfer": 0.1785,            # 0.2410 - 0.0625
        "r2_axratio": 2.86,            # 0.1785 / 0.0625 = 2.856
        "r2_tratio": 2.77,             # 0.4488 / 0.1619 = 2.772
        "r3_aratio": 30_019,           # 4,394.837 / 0.1464
        "r4_tspeed": 3.03,             # 0.4913 / 0.1619 = 3.035
        "r4_tcut": 67,                 # 1 - 0.1619 / 0.4913 = 67.05 %
        "r4_adiff": 0.073,             # 0.1352 - 0.0625 = 0.0727
    },
    "book/week05/exercises": {
        "ex3_p_ratio": 62.5,           # 250 W / 400 W
        "ex3_e_ga": 4, "ex3_e_na": 5,  # 400 / 100, 250 / 50 J per request
        "ex3_less": 20,                # 1 - 4 / 5
    },
    "book/week05/study-guide": {
        "sg_cross": 100, "sg_be_equal": 5_000, "sg_be_lower": 5_001,
        "sg_t_a_128": 2.623,           # M = 128 BF16 on A: 2,623,488 B / 1 TB/s, µs (memory-bound)
        "sg_t_b_128": 2.684,           # on B: 268,435,456 FLOP / 100 TFLOP/s, µs (compute-bound)
        "sg_bound_128": "A 대역폭, B 연산",
        "sg_ab_128": 0.98,             # 2.623 / 2.684 = 0.977
        "sg_peak_lead": "L40S가 앞섭니다",   # BF16 dense 362.05 vs 312 TFLOP/s
        "sg_bw_ratio": 2.4,            # 2,039 / 864 GB/s = 2.36
        "sg_dec_lead": "대역폭이 넓은 A100 80GB",
        "sg_win_1": "B",               # M = 1 both memory-bound: 2,103,296 B / 1 vs 2 TB/s
        "sg_win_128": "A", "sg_gain_128_abs": 2.3,   # 2.684 / 2.623 - 1 = 2.32 %
        "sg_vs_cross": "2.3 % 넘습니다",  # 102.32 / 100 - 1
        "sg_side_128": "오른쪽, 곧 A의 경사진 선이 B의 평평한 선보다 높아진 자리",
        "sg_roof_cmp": "보다 높습니다",  # A at I = 102.32: 102.3 TFLOP/s > B's 100
    },
    "book/llm-hardware/index": {
        # Llama 3 8B (8,030,261,248 parameters, Meta's config) in BF16 on A100 80GB SXM (2,039 GB/s, 312 TFLOP/s
        # BF16 dense): not the later pages' 70B-on-H100 predictions, which the index must not answer
        "idx_w": (16.06, "GB"),        # 8,030,261,248 x 2 B = 16,060,522,496 B
        "idx_mem_bound": 127,          # 2.039e12 / 16,060,522,496 = 126.96 tokens/s
        "idx_cmp_bound": 19_427,       # 312e12 / (2 x 8,030,261,248) = 19,426.5 tokens/s
        "idx_ratio": 153,              # A100 ridge 312 / 2.039 = 153.02
        "idx_crit_batch": 153,         # 312e12 x 2 B / (2 x 2.039e12)
    },
    "book/llm-hardware/memory-bandwidth": {  # Llama-3-70B as 70e9 x 2 B = 140e9 B on H100 SXM (80 GiB = 85.9e9 B)
        # weights only, 10 % reserve: 140e9 / (0.9 x 85,899,345,920 = 77,309,411,328) = 1.81 -> 2 cards;
        # the x1.2 rule (168e9 B) already holds the margin: / 85.9e9 = 1.96 -> 2; with the reserve again 2.17 -> 3
        "mb_gpus_weights": "2", "mb_gpus_serving": "2", "mb_gpus_double": "3", "mb_gpus_tp": "2",
        "mb_gpus_agree": "두 어림이 같은 답을 냅니다",
        # TP 2: (77,309,411,328 - 141,107,412,992 / 2) / (4,096 x 327,680 / 2) = 10.07 -> batch 10
        "mb_tp_fits": "들어가고 배치 10까지 받습니다", "mb_maxb_2": 10,
        "mb_cmp_ratio": 295,            # (989.4e12 / 140e9) / (3.35e12 / 140e9) = 295.3
        "mb_cmp_verdict": "대역폭이 상한을 정합니다",
        "mb_pcie_vs_ddr5": "DDR5 듀얼 채널의 아래 끝보다도 좁으므로",   # 31.5 GB/s < 70 GB/s
        "mb_g6x_vs_30": "30배의 절반에도 못 미칩니다",                   # 1,008 / 70 = 14.4 < 15
        # 13B: 4-bit 6.5e9 B x 1.2 = 7.8e9 <= 24 GiB; 1,008e9 / 6.5e9 = 155.1 tok/s. Least offload to fit 24 GiB:
        # f = (26e9 - 25,769,803,776) / 26e9 = 0.885 %; 0.99115 x 26e9 / 1,008e9 + 230,196,224 / 31.508e9
        # = 25.565 + 7.306 ms = 32.87 ms -> 30.42 tok/s; 155.08 / 30.42 = 5.1
        "mb_b13_int4_fits": "전부 카드에 올라가고", "mb_b13_int4": 155, "mb_b13_int4_ratio": 5,
        "mb_ex_m3_fp16_fits": "1.2배 여유를 둬도 메모리에 올라가지만",  # 168e9 <= 512 GiB
        "mb_ex_faster": "H100이 더 빨리", "mb_ex_h100_vs_m3": 4.1,   # 3.35e12 / 819e9 = 4.09
        "mb_ex2_total": 4.1,            # 0.9 + 0.1 x 1,008e9 / 31.508e9 = 0.9 + 3.199
    },
    "book/llm-hardware/interconnects": {
        "ic_p5_lane": (3.938, "GB/s"),  # 32 GT/s x 128/130 / 8 bits
        "ic_p5": (63, "GB/s"),          # x16 lanes: 63.0 GB/s one way
        "ic_p4": (31.5, "GB/s"),        # 16 GT/s x 16 x 128/130 / 8 = 31.5
        "ic_nv4": (450, "GB/s"),        # NVLink 4: 900 GB/s both ways
        "ic_ex_t_one": 2.22,            # 140 GB / 63.0 GB/s = 2.22 s
        "ic_ex_t_nominal_both": 1.09,   # 140 / 128 = 1.094 s
        "ic_ratio_min": 7.1,            # NVLink 4 450 GB/s / PCIe Gen5 x16 63.0 GB/s = 7.14
        "ic_ratio_order": "10배에는 못 미치는",
        # exercise 2: Llama 3 70B (N = 70,553,706,496) on 2 RTX 4090 (24 GiB, 1,008 GB/s), PCIe Gen4 x8 15.75 GB/s
        "ic_ex2_fp16_fits": "들어가지 않습니다",    # 141.1 GB > 2 x 25.77 GB
        # 4-bit blocks 68,452,360,192 x 0.5 B + embedding and head kept in BF16 (2,101,346,304 x 2 B), half per GPU:
        # 19,214,436,352 B + KV 4,096 x 327,680 / 2 = 671,088,640 <= 0.9 x 25.77e9 = 23.19e9
        "ic_ex2_fits": "두 구성 모두 4비트 가중치와 4K 문맥의 KV 캐시가 들어갑니다",
        # a token reads the blocks 34,226,180,096 + the head 2,101,346,304 + one embedding row 16,384 B, halved:
        # 18,163,771,392 + KV 671,088,640 = 18,834,860,032 B / 1.008e12 = 18.69 ms
        "ic_ex2_read_ms": 18.7,
        "ic_ex2_n_ar": 160,             # 80 layers x 2
        "ic_ex2_ar_bw_ms": 0.17,        # 160 x 16,384 B / 15.754e9 = 0.166 ms (2 ranks: S x 2 x 1/2)
        # + 160 x 42.14 us (NCCL over PCIe, 8 RTX 4090, NVIDIA/nccl #1530) = 6.909 ms
        "ic_ex2_lat": 42.14, "ic_ex2_ar_ms": 6.9,
        "ic_ex2_comm_vs_read": "통신이 가중치 읽기보다 짧습니다",
        "ic_ex2_tp_step": 25.6,         # 18.69 + 6.91
        "ic_ex2_pp_step": 37.4,         # 2 x 18.69 + one hop 42.14 + 1.04 us = 37.41 ms
        "ic_ex2_dec_verdict": "TP 2가 더 빠릅니다",
        "ic_ex2_lat_even": 116,         # (37.37 - 18.85 ms, both without fixed costs) / (160 - 1) = 0.1165 ms
        # prefill 4,096 tokens at 40 % of 330.3 TFLOP/s: per token 2N + 2 x 80 x 8,192 x 4,096 = 146,475,200,512 FLOP
        # x 4,096 = 6.0e14 FLOP / 2 GPUs / 132.12e12 = 2.270 s; TP adds 160 x (4,096 x 16,384 B / 15.754e9 + 42.14 us) = 0.688 s
        "ic_ex2_tp_pre": 2.96, "ic_ex2_tp_pre_comm": 0.69,
        "ic_ex2_pp_pre": 4.55,          # 2 stages in turn: 2 x 2.270 + one 67 MB hop 4.3 ms = 4.545 s
        "ic_ex2_pre_verdict": "프리필도 TP 2가 더 빠릅니다",
    },
    "book/llm-hardware/parallelism": {  # design §7.5: 14 GB over 32 GB/s
        "pa_ddp_2": 0.44,               # 2 x (1/2) x 14 / 32 = 0.4375 s
        "pa_ddp_8": 0.77,               # 2 x (7/8) x 14 / 32 = 0.7656 s
        "pa_ddp_inf": 0.875,            # 2 x 14 / 32
        # TP 8 forward of 70e9 params x 4,096 tokens: 2 x 70e9 x 4,096 = 573.44 TFLOP / (8 x 989.4e12) = 72.45 ms;
        # 160 all-reduces of 4,096 x 8,192 x 2 B: 10.74 GB x 2 x 7/8 / 63.0e9 = 298.2 ms (4.1x), over NVLink 4 41.8 ms
        "pa_tp_p5_over_compute": 4.1, "pa_tp_p5_verdict": "통신이 연산보다 오래 걸립니다",
        "pa_tp_nv_over_compute": 58, "pa_tp_nv_verdict": "통신이 연산보다 짧아",
        # exercise 3, Llama 3 70B BF16 (141,107,412,992 B, KV 327,680 B/token) on 8 H100 PCIe (2 TB/s, 80 GiB)
        # over PCIe Gen5 x16 (63.0 GB/s one way), serving: 1.2 x 141.1 GB > 85.9 GB and no NVLink -> PP over 8
        "pa_ex3_plan": "PP = 8 (PCIe)",
        # TP 8 per GPU reads the weights less the input embedding (2,101,346,304 B) plus one row (16,384 B) and the KV:
        # (140,348,260,352 B) / 8 = 17,543,532,544 B / 2e12 = 8.772 ms; 80 layers x 2 all-reduces of 16,384 B over PCIe
        # (NCCL, 42.14 us: 8 RTX 4090, NVIDIA/nccl #1530): 160 x (42.14 + 2 x 7/8 x 16,384 / 63.0e9 = 0.455 us) = 6.815 ms
        "pa_ex3_lat": 42.14, "pa_ex3_n_ar": 160, "pa_ex3_tp_comm": 6.8, "pa_ex3_tp_step": 15.6,   # 8.77 + 6.82 = 15.59
        # PP 8 at batch 1: the 8 stages in turn, 8 x 8.772 = 70.17 ms + 7 hops x (42.14 + 0.26 us) = 70.47 ms
        "pa_ex3_pp_step": 70.5,
        "pa_ex3_dec_verdict": "TP 8이 요청 하나의 디코드를 더 빨리 끝냅니다",
        # TP falls behind only when 160 x lat - 7 x lat > 70.17 - 8.84 ms (no-latency steps): lat > 0.401 ms
        "pa_ex3_lat_even": 401,
        "pa_ex3_pre_verdict": "프리필도 TP 8이 더 빠릅니다",   # 0.55 s (55 % all-reduce) vs 1.99 s for the 8 stages
        "pa_ex3_tp_pre": 0.55, "pa_ex3_pp_pre": 1.99, "pa_ex3_tp_pre_comm_pct": 55,
        "pa_ex3_claim": "요청 하나의 지연으로 보면 이 어림에서는 맞습니다",
    },
    "book/llm-hardware/gpu-specs": {    # design §7.8
        "gs_4090_fp16acc": 330.3,       # FP16 with FP16 accumulation, dense (NVIDIA Ada whitepaper)
        "gs_4090_fp32acc": 165.2,       # with FP32 accumulation: half (330.3 / 2 = 165.15, published 165.2)
        "gs_h100_sparse": 1_979,        # H100 SXM BF16 with 2:4 sparsity
        # Llama 3 70B by hand: embedding + head 2 x 128,256 x 8,192 = 2,101,346,304, final norm 8,192; per layer
        # attention 8,192 x (8,192 + 2 x 1,024) + 8,192^2 = 150,994,944, MLP 3 x 8,192 x 28,672 = 704,643,072,
        # norms 16,384 -> 855,654,400 x 80 = 68,452,352,000; N = 70,553,706,496, BF16 141,107,412,992 B
        "gs_w70": (141, "GB"),
        "gs_w70_gib": (131.4, "GiB"),   # / 2**30 = 131.42
        # need = weights + KV of 4,096 tokens (2 x 80 x 8 x 128 x 2 B = 327,680 B/token -> 1,342,177,280 B)
        # = 142,449,590,272 B = 132.67 GiB; usable 90 %: H200 126.9, H100 72, B200 162, MI300X 172.8, M3 460.8 GiB
        "gs_fit70": "B200, MI300X, M3 Ultra",
        "gs_h200_usable": (126.9, "GiB"),   # 0.9 x 141
        "gs_h200_need_p": (132.7, "GiB"),
        # a token reads the weights less the input embedding (2,101,346,304 B) plus one row (16,384 B) and the KV:
        # 142,449,590,272 - 2,101,346,304 + 16,384 = 140,348,260,352 B
        "gs_b200_70": 54.9,             # 7.7e12 / 140,348,260,352 = 54.86 tokens/s (54.05 if the whole table were read)
        "gs_m3_70": 5.8,                # 819e9 / 140,348,260,352 = 5.84
        # Llama 3 8B: N = 8,030,261,248 (BF16 16,060,522,496 B), KV 2 x 32 x 8 x 128 x 2 = 131,072 B/token
        # a token reads 16,060,522,496 - 1,050,673,152 (input embedding) + 8,192 (one row) = 15,009,857,536 B
        "gs_h100_8": 215,               # 3.35e12 / (15,009,857,536 + 536,870,912) = 215.5 (201.8 with the whole table)
        "gs_h100_8_rule": 223,          # weights read only: 3.35e12 / 15,009,857,536 = 223.2
        # exercise, AWQ: blocks 6,979,588,096 x (0.5 + 2.5 / 128) = 3,626,114,128 B, embedding + head kept in BF16
        # (2,101,346,304 B) -> 5,727,460,432 B held; a token reads the blocks, the head 1,050,673,152 B and one row
        # 8,192 B = 4,676,795,472 B + BF16 KV 536,870,912 B = 5,213,666,384 B (all-4-bit weights: 4,552,001,536 B)
        "gs_ex_w": (5.73, "GB"), "gs_ex_w_all4": (4.02, "GB"),
        "gs_ex_l40s": 166,              # 864e9 / 5,213,666,384 = 165.7 (189.8 with all-4-bit weights)
        "gs_ex_5090": 344,              # 1.792e12 / 5,213,666,384 = 343.7 (393.7)
    },
    "book/llm-hardware/roofline-serving": {  # Llama 3 70B (N = 70,553,706,496, see gpu-specs), H100 SXM
        "crit": 295,                    # B* = 989.4e12 x 2 / (2 x 3.35e12) = 295.3
        # decode FLOP per token at 4,096 cached tokens: 2N + 4 x 80 x 8,192 x 4,096 = 151,844,831,232;
        # bytes at batch 1: weights 141,107,412,992 + KV 4,096 x 327,680 = 1,342,177,280 -> 142,449,590,272
        "I_dec1_model": 1.07,           # 151,844,831,232 / 142,449,590,272 = 1.066
        "I_pre_model": 2_087,           # 2,048 x (2N + 2 x 80 x 8,192 x 2,048) / 2N = 2,048 x 1.01902 = 2,086.96
        "i_max_kv": 113,                # 151,844,831,232 / 1,342,177,280 = 113.1
        "rs_model_vs_rule": "둘 다 어림보다 낮습니다",   # serve 119 < 190 at batch 1, 3,118 < 6,078 at batch 32
        "rs_dec_gap": 277,              # ridge 295.34 / 1.0660 = 277.1
        "rs_dec_verdict": "대역폭이 속도를 정합니다",
        "rs_pre_verdict": "분기점을 넘으므로 연산 한계입니다",        # 2,087 > 295
        "rs_kv_verdict": "분기점보다 낮으므로 이 조건의 디코드는 배치를 아무리 키워도 메모리 한계",  # 113 < 295
        "rs_fit_vs_crit": "크기는 하지만",                         # 355 > 295.3
        "rs_crit_min": 153, "rs_crit_min_x32": 5,   # A100 80GB: 312e12 x 2 / (2 x 2.039e12) = 153.0; / 32 = 4.8
        # 8 cards, TP 8, 4K: L40S (48 GB) and RTX 4090 (24 GiB) hold fewer sequences than their B* (see the table)
        "rs_crit_unreachable": "NVIDIA L40S, NVIDIA GeForce RTX 4090",
        "thr_kv_max": 19_968,           # 8 x 3.35e12 / 1,342,177,280 = 19,967.5
        # per GPU at TP 8: usable 0.9 x 80 x 2**30 = 77,309,411,328 B, weights / 8 = 17,638,426,624,
        # KV per sequence / 8 = 167,772,160 -> (77,309,411,328 - 17,638,426,624) / 167,772,160 = 355.7
        "b_fit8": 355,
        "thr1": 190,                    # 8 x 3.35e12 / 141,107,412,992 = 189.9 (weights only)
        "thr_nokv_max": 56_093,         # 8 x 989.4e12 / 141,107,412,992
        "share32": 11,                  # 32 / (141,107,412,992 / 2.68e13) = 6,078 of 56,093 = 10.8 %
        "n_h100": 2,                    # 1 GPU: 131.4 GiB > 72 GiB; TP 2: 65.7 + 0.6 GiB <= 72
        # TP 2 at 2,256 tokens: (77,309,411,328 - 70,553,706,496) / (327,680 x 2,256 / 2) = 18.3
        "ex_maxb": 18,
    },
    "book/llm-hardware/precision-quantization": {  # design §7.3: Llama-3-70B KV cache, FP16
        "kv8k_gb": (2.68, "GB"),        # 2 x 80 x 8,192 x 8 x 128 x 2 B = 2,684,354,560 B
        "kv8k_gib": (2.5, "GiB"),       # / 2**30
        "kv128k_gb": (42.95, "GB"),     # x 16 (131,072 tokens) = 42,949,672,960 B
        "kv128k_gib": (40, "GiB"),
        "gqa_factor": 8,                # 8,192 / (8 x 128)
    },
    "book/llm-hardware/compute-budget": {  # design §7.2 and §7.7
        "t2_years": 505,                # 6 x 70e9 x 15e12 / (989e12 x 0.4) = 1.59e10 s / 31,536,000 = 505.0
        "t2_days16k": 11.5,             # 1.59e10 s / 16,000 / 86,400 = 11.52
        # N = 68,976,648,192 (Llama 2 70B config, counted by hand in test_llm_models.py):
        # 6 x N x 2e12 = 8.2772e23; / (1,720,320 h x 3,600 s x 312e12) = 1.93226e24 -> 42.84 %
        "mfu_llama2": 42.8,
        "n_l2_70": (689.8, "억"),
        "l2_hours": 1_720_320,
        # Llama 3 70B, N = 70,553,706,496 (see gpu-specs); 4K context: 2N + 4 x 80 x 8,192 x 4,096 = 151,844,831,232
        "f_tok_m": (151.8, "GFLOP"),
        "c_bound_m": 6_516,             # 989.4e12 / 151,844,831,232 = 6,515.8
        "m_bound_m": 23.9,              # 3.35e12 / (141,107,412,992 - 2,101,346,304 + 16,384 + 1,342,177,280) = 23.87
        "fits_one": "들어가지 않습니다",   # 132.7 GiB > 0.9 x 80 GiB
        # training at 8,192 tokens: 6N = 423,322,238,976 + 6 x 80 x 8,192 x 8,192 = 32,212,254,720
        # -> 455,534,493,696 per token x 15e12 = 6.833e24; / (989.4e12 x 0.4) = 1.7266e10 s
        "F2m": 6.83e24,
        "F2m_pct": 8,                   # 455,534,493,696 / 420e9 - 1 = 8.46 %
        "t2m_years": 547,               # 1.7266e10 / 31,536,000 = 547.49
        "t2m_days16k": 12.5,            # 1.7266e10 / 16,000 / 86,400 = 12.49
        # Llama 2 7B: embed + head 2 x 32,000 x 4,096 = 262,144,000; per layer 4 x 4,096^2 + 3 x 4,096 x 11,008
        # + 8,192 = 202,383,360 x 32 = 6,476,267,520; + final norm 4,096 -> N = 6,738,415,616
        "n7": "67.4억",
        # 6N + 6 x 32 x 4,096 x 4,096 = 40,430,493,696 + 3,221,225,472 = 43,651,719,168 x 1e10 tokens
        "F3m": 4.37e20,
        "t3m_days": 32.4,               # 4.3652e20 / 156e12 / 86,400 = 32.39
        "att32_rule": 133,              # 32,768 / (6 x 4,096) = 1.333
        "att32_m7": 64,                 # 32 x 4,096 x 32,768 / 6,738,415,616 = 0.637 (causal: 6 L d s / 6N)
        "att_one_7": 51_410,            # 6,738,415,616 / (32 x 4,096) = 51,410.0
        # Mixtral 8x7B: per layer attention 4,096 x 6,144 + 4,096^2 = 41,943,040, expert 3 x 4,096 x 14,336
        # = 176,160,768, router 32,768, norms 8,192; active (2 of 8 experts) 394,305,536 x 32 + 262,148,096
        "moe_act": "129억",             # 12,879,925,248
        "moe_all": "467억",             # (41,943,040 + 8 x 176,160,768 + 40,960) x 32 + 262,148,096 = 46,702,792,704
        "moe_share": 28,                # 27.6 %
        "ch_l3_over": 10.6,             # 15e12 / (20 x 70,553,706,496) = 10.63
    },
    "book/appendix/errata": {           # design §7
        "er_years": 505, "er_days": 11.5,
        "er_tpu_gib": (858.99, "GB/s"),  # 800 x 2**30 / 1e9
        "er_kv_8k": [2.68, 2.5],        # GB, GiB
        "er_kv_128k": [42.9, 40],
        "er_ddp_2": 0.44, "er_ddp_8": 0.77, "er_ddp_inf": 0.875,
        "er_mfu_l2": 43,                # 42.84 % with the catalog's N = 68,976,648,192 (43.47 % with 70e9)
        "er_4090_16": 330, "er_4090_32": 165,
        "er_p5": (63, "GB/s"), "er_p5_nominal": (64, "GB/s"),  # 32 GT/s x 16 / 8 before 128b/130b
        # "without NVLink, TP is practically impossible": 70B 4-bit on two RTX 4090 over PCIe Gen4 x8 (15.75 GB/s one
        # way), batch 1, 4K. TP 2, per GPU: half of 70.55e9 x 0.5 B = 17.6 GB / 1,008 GB/s = 17.5 ms, + half the 4K
        # KV cache (1.34 GB / 2 / 1,008 GB/s = 0.7 ms), + lm_head kept in 16 bits (~1 ms), + 160 all-reduces x (42.1 us
        # NCCL without P2P + 16 KiB over the link ~1 us) = 6.9 ms: ~26 ms, shown 25.6. PP 2: the two stages one after
        # the other, ~2 x 17.5 ms + KV + one hop = 37.4 ms. Prefill 2.96 s against 4.55 s: TP is faster in both.
        # TPU v5e pod: 50.63e15 / 256 = 197.77 TFLOP/s per chip, rounded 198, cut off 197 (the printed figure);
        # INT8: 100e15 / 256 = 390.6 TOPS, below the printed 393
        "er_pod_197": "버림값", "er_i8_dir": "작다",
        "er_nv_tp_dec": 25.6, "er_nv_tp_verdict": "TP가 둘 다 빠름",
    },
}


@pytest.fixture(scope="module")
def values():
    return glued_texts


CASES = [(page, name, exp) for page, table in EXPECTED.items() for name, exp in table.items()]


@pytest.mark.parametrize("page, name, expected", CASES, ids=[f"{p.split('/')[-1]}-{n}" for p, n, _ in CASES])
def test_glued_value(page, name, expected):
    assert_glued(page, name, expected)


def test_number_reader():
    # the reader itself, on the formats the pages use
    assert [(v, h) for v, h, _ in _numbers("1,311,744")] == [(1311744.0, 0.5)]
    assert [(v, round(h, 6)) for v, h, _ in _numbers("2.68 GB = 2.5 GiB")] == [(2.68, 0.005), (2.5, 0.05)]
    assert _numbers("3.71e-07")[0][:2] == (3.71e-07, pytest.approx(0.005e-07))
    assert _numbers("−3 ms")[0][0] == -3.0
    assert [v for v, _, _ in _numbers("44–54 GB/s")] == [44.0, 54.0]
    assert _shows(11.52, 11.5, 0.05) and not _shows(11.52, 11.6, 0.05)
    # the printed-utilisation check catches the exercise that once printed an MFU of 156 %
    found = [float(m.group(2)) for m in _MFU_PRINTED.finditer("MFU = 156.2 %, HFU ≈ 208.3 %\nMFU 39.1 %")]
    assert found == [156.2, 208.3, 39.1]


_SHARE = re.compile(r"(share|pct|percent|frac|mfu|util|efficiency)", re.I)
_MFU_PRINTED = re.compile(r"(MFU|HFU|이용률|활용률)[^\n%]{0,30}?(\d+(?:\.\d+)?)\s*%")


@pytest.mark.parametrize("page", PAGES, ids=["/".join(p.split("/")[-2:]) for p in PAGES])
def test_invariants_over_every_glued_value(values, page):
    nb = executed(page)
    for name, text in values(page).items():
        nums = _numbers(text)
        # no negative time, size, rate or count anywhere in a glued value
        assert not [v for v, _, _ in nums if v < 0], f"{page}: {name} = {text!r} is negative"
        if _SHARE.search(name) and nums:
            assert 0 <= nums[0][0] <= 100, f"{page}: {name} = {text!r} is a share above 100 %"
    printed = "".join(o.get("text", "") for c in nb.cells if c.cell_type == "code"
                      for o in c.get("outputs", []) if o.get("output_type") == "stream")
    for m in _MFU_PRINTED.finditer(printed):
        assert float(m.group(2)) <= 100, f"{page} prints an impossible utilisation: {m.group(0)!r}"
