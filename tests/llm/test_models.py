"""xpucalc.llm.Model and the model catalog: exact counts checked against transformers and by hand."""
import re

import pytest

from xpucalc import evidence, llm
from xpucalc.llm import Model, models


@pytest.mark.parametrize("key", models.keys())
def test_param_count_equals_transformers_on_meta_device(key):
    # an independent count: transformers builds the real module tree (no weights: meta device) from the same config
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    cfg = models.config(key)
    hf_cfg = transformers.AutoConfig.for_model(**cfg)
    with torch.device("meta"):
        net = transformers.AutoModelForCausalLM.from_config(hf_cfg)
    hf_count = sum(p.numel() for p in net.parameters())  # tied weights are one Parameter, counted once
    assert models.get(key).n_params == hf_count


def test_known_counts_by_hand():
    m = models.get("llama-3-8b")
    # embed 128256*4096 = 525,336,576 (x2, untied); per layer attn 4096*(4096+2*1024) + 4096*4096 = 41,943,040,
    # MLP 3*4096*14336 = 176,160,768, norms 8192 -> 218,112,000 x 32 = 6,979,584,000; + final norm 4096
    assert m.n_params == 2 * 525_336_576 + 32 * 218_112_000 + 4096 == 8_030_261_248
    mix = models.get("mixtral-8x7b")
    # experts 8 * 176,160,768 * 32 = 45,097,156,608; attn 41,943,040*32; router 4096*8*32; norms; embed+head 2*131,072,000
    assert mix.n_params == 45_097_156_608 + 1_342_177_280 + 1_048_576 + 2 * 4096 * 32 + 4096 + 262_144_000
    assert mix.n_params == 46_702_792_704          # Mistral AI: "46.7B total"
    assert mix.n_active_params == 12_879_925_248   # 6 idle experts out: "12.9B per token"
    tied = models.get("llama-3.2-1b")
    assert tied.head_params == 0 and tied.head_dim == 64


def test_kv_bytes_per_token():
    # 2 x 80 layers x 8 heads x 128 x 2 B = 327,680 B; at 8,192 tokens = the formula's 2,684,354,560 B
    m = models.get("llama-3-70b")
    assert m.kv_bytes_per_token() == 327_680
    assert m.kv_bytes_per_token() * 8192 == llm.kv_cache_bytes(80, 8, 128, 8192)
    assert m.kv_bytes_per_token(1) == 163_840      # FP8 KV halves it
    assert models.get("llama-2-7b").kv_bytes_per_token() == 524_288  # MHA: 32 KV heads, 4x the GQA 8B


def test_llama2_70b_count_and_implied_mfu_by_hand():
    # per layer: q 8192^2 + k,v 2 x 8192 x 1024 + o 8192^2 + SwiGLU 3 x 8192 x 28672 + 2 norms x 8192
    #          = 67,108,864 + 16,777,216 + 67,108,864 + 704,643,072 + 16,384 = 855,654,400
    # x 80 layers = 68,452,352,000; + embedding and untied head 2 x 32000 x 8192 = 524,288,000; + final norm 8192
    m = models.get("llama-2-70b")
    assert m.n_params == 68_976_648_192
    # Llama 2 paper: 1,720,320 A100 GPU-hours for 2.0T tokens. 6 N T = 8.27720e23 FLOP;
    # 1,720,320 h x 3,600 s x 312e12 FLOP/s = 1.93226e24 FLOP -> 42.84 % (6N only)
    assert llm.mfu_from_device_hours(m.n_params, 2.0e12, 1_720_320, 312e12) == pytest.approx(0.42837, abs=1e-5)
    r = llm.training.run("llama-2-70b")
    assert (r["device_hours"], r["tokens"], r["model"]) == (1_720_320, 2.0e12, "llama-2-70b")
    assert llm.training.run_mfu(r, attention=False) == pytest.approx(0.42837, abs=1e-5)
    with pytest.raises(KeyError, match="unknown training run key 'llama-2-7oB'.*llama-2-70b"):
        llm.training.run("llama-2-7oB")


def test_flops_per_token_causal_attention():
    m = models.get("llama-2-7b")
    # forward 2N + 2 L (H hd) s: 2*6,738,415,616 + 2*32*4096*32768 = 13,476,831,232 + 8,589,934,592
    assert m.flops_per_token(32768) == 13_476_831_232 + 8_589_934_592
    assert m.flops_per_token(32768, training=True) == 3 * m.flops_per_token(32768)
    assert m.flops_per_token(0) == 2 * m.n_params
    # decode at position p: 2N + 4 L (H hd) p (attends to all p cached tokens)
    assert m.decode_flops_per_token(1000) == 2 * m.n_params + 4 * 32 * 4096 * 1000
    mix = models.get("mixtral-8x7b")
    assert mix.flops_per_token(0, training=True) == 6 * 12_879_925_248  # active, not total


def test_expected_experts_touched():
    mix = models.get("mixtral-8x7b")
    assert mix.expected_experts_touched(1) == pytest.approx(2.0)
    # 8 (1 - (6/8)^4) = 8 (1 - 0.31640625) = 5.46875
    assert mix.expected_experts_touched(4) == pytest.approx(5.46875)
    assert mix.expected_experts_touched(1000) == pytest.approx(8.0)
    assert models.get("llama-3-8b").expected_experts_touched(64) == 1.0


def test_from_hf_config_reads_biases_and_defaults():
    cfg = {"model_type": "llama", "vocab_size": 100, "hidden_size": 64, "intermediate_size": 128,
           "num_hidden_layers": 2, "num_attention_heads": 4, "attention_bias": True, "mlp_bias": True}
    m = Model.from_hf_config(cfg)
    assert m.num_kv_heads == 4 and m.head_dim == 16
    # attn 64*(64+128) + 64*64 = 16,384 + biases 64+128+64 = 256; MLP 3*64*128 + 2*128 + 64 = 24,896; norms 128
    assert m.layer_params == 16_384 + 256 + 24_896 + 128
    mistral = Model.from_hf_config({**cfg, "model_type": "mistral"})
    assert not mistral.attention_bias and not mistral.mlp_bias  # Mistral has no bias terms


@pytest.mark.parametrize("cfg, word", [
    ({"model_type": "gpt2"}, "model_type"),
    ({"model_type": "llama", "hidden_size": 64}, "num_attention_heads"),
    ({"model_type": "llama", "vocab_size": 10, "hidden_size": 64, "intermediate_size": 8, "num_hidden_layers": 1,
      "num_attention_heads": 4, "num_key_value_heads": 3}, "num_kv_heads"),
])
def test_bad_configs_name_the_field(cfg, word):
    with pytest.raises(ValueError, match=word):
        Model.from_hf_config(cfg)


@pytest.mark.parametrize("key", models.keys())
def test_every_catalog_model_is_complete(key):
    e = models.entry(key)
    missing = [k for k in ("name", "source", "cross_check", "checked", "evidence", "config") if not e.get(k)]
    assert not missing, (
        f"xpucalc/catalog/data/models.json의 {key}에 {missing}가 없습니다. 모델마다 이름, 설정의 출처(config.json 주소), "
        f"교차 확인한 자료, 확인일, 근거 표시, 그리고 Hugging Face config의 구조 필드를 적습니다 "
        f"(CONTRIBUTING.md §6. 카탈로그에 장치나 모델 추가하기 참고)")
    assert e["source"].startswith("https://huggingface.co/"), key
    assert re.match(r"^20\d\d-\d\d-\d\d$", str(e["checked"])), f"models.json의 {key}: checked는 YYYY-MM-DD 날짜입니다"
    assert e["evidence"] in evidence.LABELS, f"models.json의 {key}: evidence {e['evidence']!r}는 어휘에 없습니다"
    assert e["config"].get("model_type"), (
        f"models.json의 {key}: config에 model_type이 없습니다. transformers가 구조를 만들 수 있게 config.json의 "
        "model_type과 구조 필드를 그대로 옮기세요")


def test_unknown_model_keys_are_named():
    with pytest.raises(KeyError, match="llama-3-8b"):
        models.get("llama-4")
    assert models.CATALOG.keys() == models.keys()


def test_valid_tp_divides_both_head_counts():
    assert models.get("llama-3-70b").valid_tp() == [1, 2, 4, 8]
    assert models.get("llama-2-7b").valid_tp() == [1, 2, 4, 8, 16, 32]


def test_catalog_keys_and_errors():
    assert llm.models.keys() == ["llama-3-8b", "llama-3-70b", "llama-3.1-405b", "llama-3.2-1b", "llama-2-7b",
                                 "llama-2-70b", "mistral-7b", "mixtral-8x7b"]
    with pytest.raises(KeyError, match=r"^\Wunknown model key 'llama-4'; known keys: llama-3-8b, llama-3-70b, "):
        llm.models.entry("llama-4")
    with pytest.raises(KeyError, match=r"^\Wunknown model key 'gpt-2'"):
        llm.models.config("gpt-2")
    m = llm.models.get("llama-2-7b")
    e = llm.models.entry("llama-2-7b")
    assert m.name == e["name"] and m.source == e["source"] and m.source.startswith("https://huggingface.co/")
    c = llm.models.config("llama-2-7b")
    c["hidden_size"] = 1                                   # a copy: the catalog is not changed
    assert llm.models.config("llama-2-7b")["hidden_size"] == 4096
