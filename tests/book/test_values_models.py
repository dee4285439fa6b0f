"""The LLM pages' numbers and verdicts that follow from the refined models of issue 21 (deliverable 4).

What changed in the models: quantizers keep the embedding and the output head in 16-bit (xpucalc.llm.quant);
a decode step reads the whole head but only one embedding row per token; LoRA/QLoRA skip the weight gradients
of the frozen weights; the per-all-reduce fixed cost depends on the interconnect (one-shot custom all-reduce on
NVLink, NCCL over PCIe); an H100 server's host memory is 8-12 channels of DDR5, not two.

Every expected value is worked by hand in the comment (catalog figures copied as literals), never computed with
xpucalc. A glued verdict must be the one its numbers give. Numbers are compared as the page shows them: the
expected value rounded to the digits displayed.
"""
from __future__ import annotations

import pytest
from _toc import assert_glued, numbers_shown, shows

# page -> {glue name: expected}: a str (exact text), a number (the first number shown) or a (number, unit) pair
EXPECTED: dict[str, dict[str, object]] = {
    "book/llm-hardware/precision-quantization": {
        # Llama 3 70B QLoRA, rank 16 on every linear layer, sequence 2,048, batch 1, recomputation + FlashAttention:
        # base (70,553,706,496 - 2,101,346,304) x 4.127 / 8 = 35,312,861,314 + embedding and head in BF16
        # 2,101,346,304 x 2 = 4,202,692,608 -> 39,515,553,922; adapter 16 B x 207,093,760 = 3,313,500,160;
        # activations 80 x 2 x 2,048 x 8,192 + 2,048 x 8,192 x 34 = 3,254,779,904 -> 46,083,833,986 B
        "ft_70B_qlora": (46.08, "GB"),
        # everything in NF4 (the old model): 70,553,706,496 x 4.127 / 8 = 36,396,893,339 + 3,313,500,160
        # + 3,254,779,904 = 42,965,173,403 B
        "ft_70B_qlora_all_nf4": (42.965, "GB"),
        "ft_70B_kept": (4.20, "GB"),
        # FP32 logits of 2,048 tokens x 128,256 and their gradient: 2 x 2,048 x 128,256 x 4 B = 2,101,346,304
        "ft_70B_logits": (2.10, "GB"),
        # L40S 48 GiB = 51,539,607,552 B - 46,083,833,986 - 2,101,346,304 = 3,354,427,262 B left, 6.5 % of the card
        "ft_70B_left": (3.35, "GB"), "ft_70B_left_pct": 7,
        "ft_70B_48_verdict": "겨우 들어가 여유가 거의 없습니다",
        # Llama 2 7B AWQ: 6,476,271,616 x 0.5 = 3,238,135,808; / 128 x 2.5 = 126,489,680; + 262,144,000 x 2
        # = 524,288,000 -> 3,888,913,488 B; TheBloke/Llama-2-7B-Chat-AWQ model.safetensors shows 3.89 GB
        "q7_scales": (126.49, "MB"), "q7_emb": (524.29, "MB"), "q7_total": (3.89, "GB"), "q7_file": (3.89, "GB"),
        "q7_file_match": "파일 페이지가 보여 주는 세 자리까지 같습니다",
        "q7_all4": (3.5, "GB"),         # 6,738,415,616 x 0.51953125 = 3,500,817,488: misses the file by 0.39 GB
    },
    "book/llm-hardware/compute-budget": {
        # Llama 2 7B (N = 6,738,415,616), rank 16 on q, k, v, o (4,096 -> 4,096, MHA) and gate, up, down:
        # 32 x 16 x (4 x 8,192 + 2 x 15,104 + 15,104) = 512 x 78,080 = 39,976,960 adapter parameters
        "lora7_T": "40M",
        # 4N + 6T = 26,953,662,464 + 239,861,760 = 27,193,524,224; 6N = 40,430,493,696; ratio 0.6726
        "lora7_f": 2.72e10, "full7_f": 4.04e10, "lora7_pct": 67,
        # recomputation adds 2N + 2T = 13,556,785,152: 40,750,309,376 = 1.008 x 6N
        "lora7_rc_f": 4.08e10, "lora7_rc_x": 1.01,
        # decode bound, Llama 3 70B on one H100 SXM at 4K: 3.35e12 / (141,107,412,992 - 2,101,346,304 + 16,384
        # + 1,342,177,280 = 140,348,260,352) = 23.87 tokens/s (23.52 if the whole embedding table were read)
        "m_bound_m": 23.9,
    },
    "book/llm-hardware/memory-bandwidth": {
        # server DDR5-4800: 8 x 64-bit = 4,800e6 x 512 / 8 = 307.2 GB/s; 12 channels 460.8 GB/s
        "mb_ddr5_srv": [307, 461],
        # HBM3 3.35 TB/s / 460.8 GB/s = 7.27; / 307.2 GB/s = 10.90
        "mb_r_hbm3_srv_lo": 7, "mb_r_hbm3_srv_hi": 11,
        "mb_30_50_server": "30배에 한참 못 미칩니다",     # 10.9 < 15
        # desktop dual channel 70-90 GB/s: 3.35e12 / 90e9 = 37.2, / 70e9 = 47.9, inside 30-50
        "mb_r_hbm3_lo": 37, "mb_r_hbm3_hi": 48,
        "mb_30_50_desktop": "30–50배 범위 안에 듭니다",
        # exercise 1 with AWQ on the Llama 3 70B shapes: 68,452,360,192 x 0.51953125 = 35,563,140,256 + head
        # 2,101,346,304 + one row 16,384 = 37,664,502,944 B per token; 3.35e12 / that = 88.94 (95.7 by the 0.5-byte rule)
        "mb_ex_awq_read": (37.66, "GB"), "mb_ex_h100_awq": 88.9,
    },
    "book/llm-hardware/roofline-serving": {
        # TP 8 on H100 SXM: vLLM's one-shot all-reduce at TP 8, 0.0118 ms (sglang PR #2904, 32 KB)
        "lat_us": 11.8, "lat_nccl_us": 19,           # NCCL called eagerly: 19.19 us (Triton-distributed #57)
        # Llama 3 70B BF16 batch 1: per GPU (140,348,260,352 B) / 8 / 3.35e12 = 5.237 ms; 160 all-reduces of
        # 11.8 us + 2 x 7/8 x 16,384 / 450e9 = 0.064 us -> 1.898 ms; step 7.135 ms, 26.6 % of it
        "comm1_ms": 1.9, "step1_ms": 7.1, "comm1_pct": 27,
    },
    "book/llm-hardware/gpu-specs": {
        # Llama 3 70B AWQ x 1.2: (68,452,360,192 x 0.51953125 = 35,563,140,256 + 4,202,692,608) x 1.2
        # = 47,718,999,437 B; RTX 4090 24 GiB = 25,769,803,776 B -> 1.85 -> 2 cards
        "gs_70b_int4": (48, "GB"), "gs_70b_int4_cards": "2",
        # Llama 3 8B: 16,060,522,496 B held, a token reads 15,009,857,536 B (one embedding row, not the table)
        "gs_w8_read": (15.0, "GB"),
        "gs_ex_bpw": 0.520,             # 0.5 + 2.5 / 128 = 0.51953
        # AWQ weights read per token: 3,626,114,128 + 1,050,673,152 + 8,192 = 4,676,795,472 B
        "gs_ex_read": (4.68, "GB"),
    },
    "book/week05/what-fast-means": {
        # Llama 3 8B BF16 on one H100 SXM, 4K context: a step reads 15,009,849,344 B of weights + 8,192 B per
        # sequence (its embedding row) + 536,870,912 B of KV per sequence
        "itl_1": 4.64,                  # (15,009,857,536 + 536,870,912) / 3.35e12 = 4.6408 ms (4.954 ms before)
        "thr_1": 215,                   # 1 / 4.6408 ms = 215.5 tokens/s
        # batch 114 (floor((77,309,411,328 - 16,060,522,496) / 536,870,912) = 114): (15,009,849,344 + 114 x
        # 8,192 + 114 x 536,870,912 = 76,214,067,200) / 3.35e12 = 22.750 ms -> 114 / 22.750 ms = 5,010.9 tokens/s
        "b_max": 114, "thr_max": 5_011,
    },
    "book/llm-hardware/interconnects": {
        # 70B 4-bit on 2 RTX 4090 over PCIe Gen4 x8: decode all-reduce traffic 0.17 ms + 160 x 42.14 us against
        # 18.69 ms of reading per GPU; TP 2 25.6 ms vs PP 2 37.4 ms; prefill 2.96 s (0.69 s comm) vs 4.55 s
        "ic_ex2_comm_vs_read": "통신이 가중치 읽기보다 짧습니다",
        "ic_ex2_dec_verdict": "TP 2가 더 빠릅니다",
        "ic_ex2_pre_verdict": "프리필도 TP 2가 더 빠릅니다",
        "ic_ex2_lat": 42.14,
    },
    "book/llm-hardware/parallelism": {
        "pa_ex3_lat": 42.14,            # NCCL over PCIe (8 RTX 4090, NVIDIA/nccl #1530), not the NVLink figure
        "pa_ex3_dec_verdict": "TP 8이 요청 하나의 디코드를 더 빨리 끝냅니다",   # 15.6 ms vs 70.5 ms
    },
}


CASES = [(page, name, exp) for page, table in EXPECTED.items() for name, exp in table.items()]


@pytest.mark.parametrize("page, name, expected", CASES, ids=[f"{p.split('/')[-1]}-{n}" for p, n, _ in CASES])
def test_model_value(page, name, expected):
    assert_glued(page, name, expected)


def test_the_reader_rounds_as_shown():
    assert shows(46.08, 46.1, 0.05) and not shows(42.97, 46.1, 0.05)
    assert [v for v, _, _ in numbers_shown("307–461 GB/s")] == [307.0, 461.0]
