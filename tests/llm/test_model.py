"""xpucalc.llm.model: `Model` counted by hand on tiny configs, and checked against transformers on the meta device.

Every expected value is worked by hand from the shapes (the derivation sits in a comment), taken from a
published source, or counted a second way by ``transformers`` on the meta device. None is computed with the
function under test or its constants.

The tiny dense config used throughout (``TINY``): V = 10, d = 8, I = 12, L = 2, H = 4 query heads, 2 KV heads,
head_dim = d / H = 2, so q_dim = 8 and kv_dim = 4.
  embedding V d = 80; untied head 80; final norm d = 8
  attention per layer: q 8x8 = 64, k 8x4 = 32, v 8x4 = 32, o 8x8 = 64 -> 192 (biases: q 8 + k 4 + v 4 + o 8 = 24)
  SwiGLU per layer: gate 8x12 + up 8x12 + down 12x8 = 288 (biases: 12 + 12 + 8 = 32)
  norms per layer: 2 x 8 = 16
  layer 192 + 288 + 16 = 496; total 80 + 80 + 8 + 2 x 496 = 1,160
"""
import pytest

from xpucalc import llm

TINY = {"model_type": "llama", "vocab_size": 10, "hidden_size": 8, "intermediate_size": 12,
        "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2}
# the same shapes as a Mixtral with 4 experts, top-2 routing
TINY_MOE = {**TINY, "model_type": "mixtral", "num_local_experts": 4, "num_experts_per_tok": 2}


def tiny(**over):
    return llm.Model.from_hf_config({**TINY, **over})


def hf_count(cfg):
    """Parameters of the module tree transformers builds from ``cfg`` (meta device: no weights allocated)."""
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    hf_cfg = transformers.AutoConfig.for_model(**cfg)
    with torch.device("meta"):
        net = transformers.AutoModelForCausalLM.from_config(hf_cfg)
    return sum(p.numel() for p in net.parameters())


# --- parameter counts -------------------------------------------------------------------------------------------
def test_tiny_dense_counts_by_hand():
    m = tiny()
    assert (m.num_kv_heads, m.head_dim, m.q_dim, m.kv_dim) == (2, 2, 8, 4)
    assert m.embedding_params == 80 and m.head_params == 80
    assert m.attention_params_per_layer == 192
    assert m.expert_params == 288
    assert m.norm_params_per_layer == 16
    assert m.router_params_per_layer == 0 and not m.is_moe
    assert m.layer_params == 496
    assert m.n_params == 1160
    assert m.n_active_params == 1160          # dense: every parameter is active
    assert m.n_expert_params == 0 and m.n_shared_params == 1160
    assert m.weights_bytes() == 2320          # BF16 default: 2 B x 1,160
    # INT4 blocks, embedding + head (2 x 10 x 8 = 160) kept in 16-bit: 1,000 x 0.5 + 160 x 2 = 500 + 320
    assert m.n_embedding_head_params == 160
    assert m.weights_bytes(0.5) == 820
    assert m.weights_bytes(0.5, embedding_bytes=0.5) == 580   # everything in 4 bits: half a byte each
    assert m.weights_bytes(4.0) == 4640       # FP32 keeps the embedding in FP32 too
    with pytest.raises(ValueError, match=r"^embedding_bytes must be > 0"):
        m.weights_bytes(0.5, embedding_bytes=0)


def test_tied_head_drops_one_vocab_matrix():
    m = tiny(tie_word_embeddings=True)
    assert m.tie_word_embeddings is True
    assert m.head_params == 0 and m.embedding_params == 80
    assert m.n_params == 1160 - 80 == 1080


def test_attention_and_mlp_biases_by_hand():
    a = tiny(attention_bias=True)
    assert (a.attention_bias, a.mlp_bias) == (True, False)
    assert a.attention_params_per_layer == 192 + 24      # q 8 + k 4 + v 4 + o 8
    assert a.n_params == 1160 + 2 * 24 == 1208
    b = tiny(mlp_bias=True)
    assert (b.attention_bias, b.mlp_bias) == (False, True)
    assert b.expert_params == 288 + 32                     # gate 12 + up 12 + down 8
    assert b.n_params == 1160 + 2 * 32 == 1224
    both = tiny(attention_bias=True, mlp_bias=True)
    assert both.n_params == 1160 + 2 * (24 + 32) == 1272
    # Mistral ignores the Llama bias keys (its modules have none)
    assert llm.Model.from_hf_config({**TINY, "model_type": "mistral", "attention_bias": True,
                                     "mlp_bias": True}).n_params == 1160


def test_explicit_head_dim_by_hand():
    # head_dim 3 (not d/H = 2): q_dim = 12, kv_dim = 6
    # attention: q 8x12 = 96, k 8x6 = 48, v 48, o 12x8 = 96 -> 288; biases 12 + 6 + 6 + 8 = 32
    m = tiny(head_dim=3)
    assert (m.head_dim, m.q_dim, m.kv_dim) == (3, 12, 6)
    assert m.attention_params_per_layer == 288
    assert tiny(head_dim=3, attention_bias=True).attention_params_per_layer == 320
    assert m.n_params == 80 + 80 + 8 + 2 * (288 + 288 + 16) == 1352


def test_moe_counts_by_hand():
    m = llm.Model.from_hf_config(TINY_MOE)
    assert m.is_moe and (m.num_experts, m.experts_per_token) == (4, 2)
    # router d x E = 8 x 4 = 32; 4 experts x 288 = 1,152; layer 192 + 1,152 + 32 + 16 = 1,392
    assert m.router_params_per_layer == 32
    assert m.layer_params == 1392
    assert m.n_params == 80 + 80 + 8 + 2 * 1392 == 2952
    # experts of all layers 4 x 288 x 2 = 2,304; shared 2,952 - 2,304 = 648
    assert m.n_expert_params == 2304 and m.n_shared_params == 648
    # a token skips 2 of 4 experts in each of 2 layers: 2,952 - 2 x 288 x 2 = 1,800
    assert m.n_active_params == 1800
    # Mixtral has no bias keys, even if a config names them
    assert not llm.Model.from_hf_config({**TINY_MOE, "attention_bias": True}).attention_bias


@pytest.mark.parametrize("over, expected", [
    ({}, 1160), ({"tie_word_embeddings": True}, 1080), ({"attention_bias": True}, 1208),
    ({"mlp_bias": True}, 1224), ({"head_dim": 3}, 1352),
    ({"model_type": "mixtral", "num_local_experts": 4, "num_experts_per_tok": 2}, 2952),
])
def test_tiny_counts_equal_transformers_on_meta_device(over, expected):
    cfg = {**TINY, **over}
    assert hf_count(cfg) == expected                       # the hand count above agrees with transformers
    assert llm.Model.from_hf_config(cfg).n_params == expected


# --- config.json in and out ------------------------------------------------------------------------------------
def test_from_hf_config_defaults_and_names():
    base = {k: v for k, v in TINY.items() if k not in ("model_type", "num_key_value_heads")}
    m = llm.Model.from_hf_config({**base, "attention_bias": True})
    # no model_type: read as Llama (biases honoured, name "llama"); no KV head count: multi-head (4)
    assert m.name == "llama" and m.attention_bias and m.num_kv_heads == 4
    assert m.tie_word_embeddings is False and m.num_experts == 1 and m.experts_per_token == 1
    assert m.source is None
    # a null KV head count or head_dim also falls back
    assert llm.Model.from_hf_config({**TINY, "num_key_value_heads": None, "head_dim": None}).num_kv_heads == 4
    assert llm.Model.from_hf_config({**TINY, "head_dim": None}).head_dim == 2
    # head_dim defaults to the floor of d / H: 10 // 4 = 2 (not 2.5, which is no head width)
    assert llm.Model.from_hf_config({**TINY, "hidden_size": 10, "head_dim": None}).head_dim == 2
    # two experts, top-2: both are read from the config
    two = llm.Model.from_hf_config({**TINY_MOE, "num_local_experts": 2})
    assert (two.num_experts, two.experts_per_token, two.n_active_params == two.n_params) == (2, 2, True)
    # name: the argument wins, then _name_or_path, then the model type
    assert llm.Model.from_hf_config({**TINY, "_name_or_path": "org/tiny"}).name == "org/tiny"
    assert llm.Model.from_hf_config({**TINY, "_name_or_path": "org/tiny"}, name="T", source="https://x").name == "T"
    assert llm.Model.from_hf_config(TINY, source="https://x/config.json").source == "https://x/config.json"
    assert llm.Model.from_hf_config({**TINY, "model_type": "mistral"}).name == "mistral"
    # MoE without num_experts_per_tok routes to one expert; a dense config ignores num_experts_per_tok
    assert llm.Model.from_hf_config({**TINY_MOE, "num_experts_per_tok": None}).experts_per_token == 1
    assert llm.Model.from_hf_config({**TINY, "num_experts_per_tok": 2}).experts_per_token == 1
    assert llm.Model.from_hf_config({**TINY, "num_local_experts": 1, "num_experts_per_tok": 2}).experts_per_token == 1


def test_to_hf_config_exact_and_round_trip():
    m = tiny(attention_bias=True, tie_word_embeddings=True)
    assert m.to_hf_config() == {
        "model_type": "llama", "vocab_size": 10, "hidden_size": 8, "intermediate_size": 12,
        "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 2,
        "tie_word_embeddings": True, "attention_bias": True, "mlp_bias": False}
    moe = llm.Model.from_hf_config(TINY_MOE)
    assert moe.to_hf_config() == {
        "model_type": "mixtral", "vocab_size": 10, "hidden_size": 8, "intermediate_size": 12,
        "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 2,
        "tie_word_embeddings": False, "num_local_experts": 4, "num_experts_per_tok": 2}
    for x in (m, moe, tiny(head_dim=3, mlp_bias=True)):
        assert llm.Model.from_hf_config(x.to_hf_config(), name=x.name) == x
    # and transformers builds the same count from the written config
    assert hf_count(moe.to_hf_config()) == 2952


@pytest.mark.parametrize("missing", ["vocab_size", "hidden_size", "intermediate_size", "num_hidden_layers",
                                     "num_attention_heads"])
def test_missing_key_is_named(missing):
    cfg = {k: v for k, v in TINY.items() if k != missing}
    with pytest.raises(ValueError, match=rf"^config is missing '{missing}'; a Llama/Mistral/Mixtral config.json"):
        llm.Model.from_hf_config(cfg)


@pytest.mark.parametrize("cfg, pattern", [
    ([("hidden_size", 8)], r"^config must be a dict parsed from config.json, got list"),
    ({**TINY, "model_type": "gpt2"}, r"^model_type 'gpt2' is not supported; supported: llama, mistral, mixtral"),
    ({**TINY, "hidden_size": 0}, r"^hidden_size must be a whole number >= 1, got 0"),
    ({**TINY, "vocab_size": 2.5}, r"^vocab_size must be a whole number >= 1"),
    ({**TINY, "num_key_value_heads": 3}, r"^num_heads \(4\) must be a multiple of num_kv_heads \(3\)"),
    ({**TINY_MOE, "num_experts_per_tok": 5}, r"^experts_per_token \(5\) cannot exceed num_experts \(4\)"),
])
def test_bad_configs_raise_with_the_key(cfg, pattern):
    with pytest.raises(ValueError, match=pattern):
        llm.Model.from_hf_config(cfg)


def test_constructor_checks_each_field():
    ok = dict(name="t", vocab_size=10, hidden_size=8, intermediate_size=12, num_layers=2, num_heads=4,
              num_kv_heads=2, head_dim=2)
    assert llm.Model(**ok).n_params == 1160
    for f in ("vocab_size", "hidden_size", "intermediate_size", "num_layers", "num_heads", "num_kv_heads",
              "head_dim", "num_experts", "experts_per_token"):
        with pytest.raises(ValueError, match=rf"^{f} must be a whole number >= 1, got 0$"):
            llm.Model(**{**ok, f: 0})
    assert llm.Model(**{**ok, "vocab_size": 10.0}).vocab_size == 10 and isinstance(
        llm.Model(**{**ok, "vocab_size": 10.0}).vocab_size, int)
    for f in ("tie_word_embeddings", "attention_bias", "mlp_bias"):
        with pytest.raises(ValueError, match=rf"^{f} must be True or False, got 1$"):
            llm.Model(**{**ok, f: 1})
    # an exact equality passes: experts_per_token = num_experts
    assert llm.Model(**{**ok, "num_experts": 2, "experts_per_token": 2}).n_active_params == \
        80 + 80 + 8 + 2 * (192 + 2 * 288 + 8 * 2 + 16)   # router d x E = 16


# --- memory, routing, FLOPs, TP ---------------------------------------------------------------------------------
def test_kv_bytes_per_token_by_hand():
    m = tiny()
    # 2 (K, V) x 2 layers x kv_dim 4 x 2 B = 32 B
    assert m.kv_bytes_per_token() == 32
    assert m.kv_bytes_per_token(1) == 16
    assert tiny(head_dim=3).kv_bytes_per_token() == 2 * 2 * 6 * 2
    with pytest.raises(ValueError, match=r"^kv_dtype_bytes must be > 0"):
        m.kv_bytes_per_token(0)
    with pytest.raises(ValueError, match=r"^weight_bytes must be > 0"):
        m.weights_bytes(0)


def test_routing_and_weights_read_by_hand():
    m = llm.Model.from_hf_config(TINY_MOE)
    # E (1 - (1 - k/E)^B), E = 4, k = 2: B = 1 -> 2; B = 2 -> 4 (1 - 1/4) = 3; B = 3 -> 4 (1 - 1/8) = 3.5
    assert m.expected_experts_touched(1) == pytest.approx(2.0)
    assert m.expected_experts_touched(2) == pytest.approx(3.0)
    assert m.expected_experts_touched(3) == pytest.approx(3.5)
    # shared 648 = 488 of blocks (attention, norms, router) + embedding 80 + head 80. A step reads the 488, the
    # touched experts x 288 x 2 layers, the whole head (80) and one embedding row of 8 per token, at 2 B:
    # B = 1 -> (488 + 1,152 + 80 + 8) x 2 = 3,456; B = 2 -> (488 + 1,728 + 80 + 16) x 2 = 4,624
    assert m.weights_read_per_step(1) == pytest.approx(3456.0)
    assert m.weights_read_per_step(2) == pytest.approx(4624.0)
    # 1-byte blocks keep the embedding and head at 2 B: 488 + 1,728 + (80 + 16) x 2 = 2,408
    assert m.weights_read_per_step(2, 1.0) == pytest.approx(2408.0)
    assert m.weights_read_per_step(2, 1.0, embedding_bytes=1.0) == pytest.approx(2312.0)
    d = tiny()
    assert d.expected_experts_touched(5) == 1.0
    # dense: blocks 1,000 + head 80 + 7 rows of 8 = 1,136 parameters read, x 2 B; 1-byte blocks: 1,000 + 136 x 2
    assert d.weights_read_per_step(7) == 2272 and d.weights_read_per_step(7, 1.0) == 1272
    # 20 tokens cannot read more than the 10 rows there are: every weight once, 2 x 1,160
    assert d.weights_read_per_step(20) == 2320 == d.weights_bytes()
    # tied: the one 10 x 8 matrix is read whole by the head; the lookup adds nothing
    t = tiny(tie_word_embeddings=True)
    assert t.embedding_head_read_bytes(3) == 160 and t.weights_read_per_step(3) == 2 * 1080
    with pytest.raises(ValueError, match=r"^tokens must be a whole number >= 1"):
        m.expected_experts_touched(0)
    with pytest.raises(ValueError, match=r"^weight_bytes must be > 0"):
        d.weights_read_per_step(1, -1.0)


def test_flops_per_token_by_hand():
    m = tiny()
    # forward: 2 N + 2 L q_dim s = 2 x 1,160 + 2 x 2 x 8 x 10 = 2,320 + 320 = 2,640
    assert m.attention_flops_per_token(10) == 320 == m.attention_flops_per_token(10, training=False)  # forward default
    assert m.attention_flops_per_token(10, training=True) == 960
    assert m.flops_per_token(10) == 2640
    # training: 6 N + 3 x 320 = 6,960 + 960 = 7,920
    assert m.flops_per_token(10, training=True) == 7920
    assert m.flops_per_token(0) == 2320
    # decode at position 5: 2 N + 4 L q_dim p = 2,320 + 4 x 2 x 8 x 5 = 2,640
    assert m.decode_flops_per_token(5) == 2640
    assert m.decode_flops_per_token(0) == 2320
    moe = llm.Model.from_hf_config(TINY_MOE)
    assert moe.flops_per_token(10, training=True) == 6 * 1800 + 960   # active params, not 2,952
    with pytest.raises(ValueError, match=r"^context must be >= 0"):
        m.flops_per_token(-1)
    with pytest.raises(ValueError, match=r"^position must be >= 0"):
        m.decode_flops_per_token(-1)


@pytest.mark.parametrize("heads, kv, expected", [(4, 2, [1, 2]), (6, 6, [1, 2, 3, 6]), (12, 4, [1, 2, 4]),
                                                 (4, 1, [1])])
def test_valid_tp_by_hand(heads, kv, expected):
    m = llm.Model(name="t", vocab_size=10, hidden_size=12, intermediate_size=4, num_layers=1, num_heads=heads,
                  num_kv_heads=kv, head_dim=2)
    assert m.valid_tp() == expected


def test_config_zero_counts_and_string_flags_are_refused_not_defaulted():
    import pytest
    from xpucalc.llm import Model, models
    cfg = models.config("llama-3-8b")
    for key in ("num_key_value_heads", "head_dim", "num_local_experts"):
        with pytest.raises(ValueError, match=rf"^config\['{key}'\] must be a whole number >= 1 .*got 0"):
            Model.from_hf_config({**cfg, key: 0})
    assert Model.from_hf_config({**cfg, "head_dim": None}).head_dim == 128     # null still means "absent"
    with pytest.raises(ValueError, match=r"^tie_word_embeddings must be True or False, got 'false'"):
        Model.from_hf_config({**cfg, "tie_word_embeddings": "false"})
    with pytest.raises(ValueError, match=r"^training must be True or False"):
        models.get("llama-3-8b").flops_per_token(4096, training="True")
