"""xpucalc.llm.quant and the quantized footprints: what stays in 16-bit, worked by hand and against published files.

Hand counts: Llama 3 8B has N = 8,030,261,248 parameters, of which the embedding and the untied head are
2 x 128,256 x 4,096 = 1,050,673,152; Llama 3 70B N = 70,553,706,496 with 2 x 128,256 x 8,192 = 2,101,346,304;
Llama 2 7B N = 6,738,415,616 with 2 x 32,000 x 4,096 = 262,144,000; Llama 2 70B N = 68,976,648,192 with
2 x 32,000 x 8,192 = 524,288,000 (see test_models.py for the counts against transformers).
"""
import pytest

from xpucalc import llm
from xpucalc.llm import models, quant


def test_every_method_keeps_the_embedding_and_the_head_in_16_bit_with_sources():
    assert quant.keys() == ["bnb-nf4", "bnb-int8", "gptq", "awq", "fp8"]
    for key in quant.keys():
        m = quant.get(key)
        assert {"embed_tokens", "lm_head"} <= set(m.kept_16bit), key
        assert m.sources and all(u.startswith("https://") for u in quant.source_urls(key)), key
    assert quant.source_urls("bnb-nf4")[0].endswith("src/transformers/integrations/bitsandbytes.py")
    # LLM.int8() multiplies 8-bit weights by 8-bit activations, outliers in FP16: W8A8, not W8A16
    assert "W8A8" in quant.get("bnb-int8").activations and "FP16 outlier" in quant.get("bnb-int8").activations
    with pytest.raises(KeyError, match=r"unknown quantization method key 'gguf'; known keys: bnb-nf4, "):
        quant.get("gguf")


def test_bytes_per_weight_by_hand():
    # AWQ / GPTQ, group 128: 4 bits + (FP16 scale 2 B + 4-bit zero 0.5 B) / 128 = 0.5 + 0.01953125
    assert quant.get("awq").bytes_per_weight == 0.51953125 == quant.get("gptq").bytes_per_weight
    # NF4 with double quantization: 4 + 8/64 + 32/(64 x 256) = 4.127 bits, constants included
    assert quant.get("bnb-nf4").bytes_per_weight == pytest.approx(4.127 / 8)
    assert quant.get("fp8").bytes_per_weight == 1.0 == quant.get("bnb-int8").bytes_per_weight


def test_llama3_8b_int4_footprint_by_hand():
    m = models.get("llama-3-8b")
    assert m.n_embedding_head_params == 1_050_673_152
    q = quant.model_bytes(m, "awq")
    # 6,979,588,096 x 0.5 = 3,489,794,048; / 128 x 2.5 = 136,320,080; kept 1,050,673,152 x 2 = 2,101,346,304
    assert q == {"quantized": 3_489_794_048, "metadata": pytest.approx(136_320_080), "kept_16bit": 2_101_346_304,
                 "total": pytest.approx(5_727_460_432)}
    # all 8.03B parameters in 4 bits would be 4,015,130,624 B: the kept embedding and head add 1.58 GB (39 %)
    assert m.weights_bytes(0.5, embedding_bytes=0.5) == 4_015_130_624
    assert m.weights_bytes(0.5) == 3_489_794_048 + 2_101_346_304 == 5_591_140_352


def test_llama3_70b_qlora_base_by_hand():
    m = models.get("llama-3-70b")
    q = quant.model_bytes(m, "bnb-nf4")
    # (70,553,706,496 - 2,101,346,304) x 4.127 / 8 = 35,312,861,314.048; kept 2,101,346,304 x 2 = 4,202,692,608
    assert q["quantized"] == pytest.approx(35_312_861_314.048) and q["metadata"] == 0
    assert q["total"] == pytest.approx(39_515_553_922.048)
    # the fine-tuning memory uses the same base
    ft = llm.training.finetune_memory(m, "qlora")
    assert ft["base_weights"] == pytest.approx(39_515_553_922.048)
    # + adapter state 16 B x 207,093,760 (rank 16 on every linear layer) + activations (recomputation,
    # FlashAttention, 2,048 x 1): 80 x 2 x 2,048 x 8,192 + 2,048 x 8,192 x 34 = 2,684,354,560 + 570,425,344
    assert ft["adapter_state"] == 16 * 207_093_760 and ft["activations"] == 3_254_779_904
    assert sum(ft.values()) == pytest.approx(46_083_833_986.048)   # 46.1 GB before the logits (42.97 all-NF4)


def test_published_awq_files_match_the_kept_embedding_model():
    # TheBloke/Llama-2-7B-Chat-AWQ model.safetensors: 3.89 GB (Hugging Face file page, checked 2026-12-02).
    # 6,476,271,616 x 0.51953125 = 3,364,625,488 + 262,144,000 x 2 = 3,888,913,488 B
    q7 = quant.model_bytes(models.get("llama-2-7b"), "awq")["total"]
    assert q7 == pytest.approx(3_888_913_488) and round(q7 / 1e9, 2) == 3.89
    # TheBloke/Llama-2-70B-Chat-AWQ: four shards 9.94 + 9.9 + 9.9 + 6.87 = 36.61 GB (shown to 3 digits).
    # 68,452,360,192 x 0.5 = 34,226,180,096 + / 128 x 2.5 = 1,336,960,160, + 524,288,000 x 2 = 36,611,716,256 B
    q70 = quant.model_bytes(models.get("llama-2-70b"), "awq")["total"]
    assert q70 == pytest.approx(36_611_716_256, rel=1e-12) and abs(q70 / 1e9 - 36.61) < 0.02
    # quantizing the embedding and head too would miss both files by 0.2 GB and 0.8 GB
    assert abs(6_738_415_616 * 0.51953125 / 1e9 - 3.89) > 0.3 and abs(68_976_648_192 * 0.51953125 / 1e9 - 36.61) > 0.7


def test_model_bytes_refuses_what_it_cannot_size():
    with pytest.raises(ValueError, match=r"^model must be an xpucalc.llm.Model"):
        quant.model_bytes(7e9, "awq")
    with pytest.raises(KeyError):
        quant.model_bytes(models.get("llama-3-8b"), "int3")


def test_lora_train_flops_per_token_by_hand():
    # frozen base: forward 2N, backward activation gradients 2N, no 2N weight-gradient term;
    # adapters: 2T forward + 2T activation gradients + 2T weight gradients. N = 1e9, T = 1e7:
    # 4e9 + 6e7 = 4.06e9 (full training 6e9); recomputation adds a forward, 2N + 2T: 6.08e9
    assert llm.lora_train_flops_per_token(1e9, 1e7) == pytest.approx(4.06e9)
    assert llm.lora_train_flops_per_token(1e9, 1e7, recompute=True) == pytest.approx(6.08e9)
    assert llm.lora_train_flops_per_token(1e9, 1e7) / llm.train_flops_per_token(1e9) == pytest.approx(0.6767, abs=1e-4)
    with pytest.raises(ValueError, match=r"^trainable_params \(1e\+09\) must be smaller than n_params"):
        llm.lora_train_flops_per_token(1e9, 1e9)
    with pytest.raises(ValueError, match=r"^recompute must be True or False"):
        llm.lora_train_flops_per_token(1e9, 1e7, recompute="yes")
