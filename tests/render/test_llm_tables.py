"""xpucalc.render.llm_tables: the published training runs as the compute-budget page shows them (cells by hand)."""
from xpucalc.llm import training
from xpucalc.render import llm_tables


def test_published_runs_cells_by_hand():
    t = llm_tables.published_runs("캡션")
    assert t.caption == "캡션"
    assert t.headers == ["학습", "장치·GPU 시간", "토큰", "함의 MFU (6N만)", "함의 MFU (+어텐션)", "논문 보고 MFU", "출처"]
    rows = {r[0]: r for r in t.rows}
    assert len(t.rows) == 5
    # Llama 2 70B: N = 68,976,648,192 (tests/llm/test_models.py, by hand); 2.0T tokens; 1,720,320 A100 hours at
    # 312 TFLOP/s dense BF16 = 1.93226e24 FLOP. 6 N T = 8.27720e23 -> 42.8 %; with attention
    # 6 x 80 x 8192 x 4096 = 16,106,127,360 FLOP per token more: (413,859,889,152 + 16,106,127,360) x 2e12
    # = 8.59932e23 -> 44.5 %
    assert rows["Llama 2 70B 사전학습"] == [
        "Llama 2 70B 사전학습", "NVIDIA A100 80GB SXM 1.72M 시간", "2T", "42.8 %", "44.5 %", "—",
        "Touvron et al., Llama 2"]
    # Llama 3.1 70B (Llama 3 70B shapes): per layer as Llama 2 70B, 855,654,400 x 80 = 68,452,352,000;
    # embed + head 2 x 128,256 x 8,192 = 2,101,346,304; + norm 8,192 -> N = 70,553,706,496.
    # 6 N x 15e12 = 6.34983e24 over 7.0M H100 hours x 3,600 x 989.4e12 = 2.49329e25 -> 25.5 %;
    # + attention at 8K context 6 x 80 x 8192 x 8192 = 32,212,254,720 per token, x 15e12 = 4.83184e23
    # -> 6.83302e24 / 2.49329e25 = 27.4 %
    assert rows["Llama 3.1 70B 사전학습"] == [
        "Llama 3.1 70B 사전학습", "NVIDIA H100 SXM 7M 시간", "15T", "25.5 %", "27.4 %", "—",
        "Meta Llama 3.1 model card"]
    r405 = rows["Llama 3.1 405B 사전학습"]
    # the Llama 3 paper's Table 4: 38-43 % BF16 MFU; 30.84M GPU hours; 15.6T tokens; two distinct sources
    assert r405[1] == "NVIDIA H100 SXM 30.84M 시간" and r405[2] == "15.6T" and r405[5] == "38–43 %"
    assert r405[6] == "Meta Llama 3.1 model card; Llama Team, AI @ Meta, The Llama 3 Herd of Models, arXiv 2407.21783"
    assert llm_tables.published_runs().caption == ""
    assert len(llm_tables.published_runs().rows) == len(training.runs())


def test_published_runs_formats_a_run_with_uneven_figures(monkeypatch):
    # a made-up run whose figures sit next to rounding boundaries, so every format and divisor shows;
    # its three source ids are distinct (the stored runs repeat theirs)
    fake = {"key": "fake", "name": "합성 학습", "model": "llama-2-7b", "device": "a100-80gb",
            "device_hours": 1_235_000, "tokens": 1.35e12, "seq_len": 4096, "reported_mfu": [0.3849, 0.4321],
            "source": "llama31-card", "tokens_source": "llama3-paper", "mfu_source": "llama2-paper"}
    monkeypatch.setattr(training, "runs", lambda: [fake])
    (row,) = llm_tables.published_runs().rows
    # hours 1,235,000 / 1e6 = 1.235 -> "1.24" at 2 decimals; tokens 1.35 -> "1.4" at 1 decimal
    # Llama 2 7B: N = 6,738,415,616 (tests/llm/test_models.py); budget 1,235,000 h x 3,600 x 312e12 = 1.38715e24 FLOP
    # 6 N T = 6 x 6,738,415,616 x 1.35e12 = 5.45812e22 -> 3.93 % -> "3.9 %"
    # + attention 6 x 32 x 4096 x 4096 = 3,221,225,472 per token: 5.89298e22 -> 4.248 % -> "4.2 %"
    # reported 38.49 % and 43.21 % at 0 decimals -> "38–43 %"
    assert row == ["합성 학습", "NVIDIA A100 80GB SXM 1.24M 시간", "1.4T", "3.9 %", "4.2 %", "38–43 %",
                   "Meta Llama 3.1 model card; Llama Team, AI @ Meta, The Llama 3 Herd of Models, arXiv 2407.21783; "
                   "Touvron et al., Llama 2"]
