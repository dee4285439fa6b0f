"""The errata page's corrections of quoted source figures, and the verdicts it draws from them (issue 21).

Every expected value below is worked by hand from the source's own numbers or the catalog's documented
figures; the derivation is in the comment, never a call to xpucalc. A glued verdict ("32보다 크다") must be
the one its numbers give, so a page whose numbers change cannot keep a stale verdict.
"""
from __future__ import annotations

import re

import pytest
from _toc import ROOT, executed, glue_text, glued

ERRATA = "book/appendix/errata"


@pytest.fixture(scope="module")
def errata() -> dict[str, str]:
    return {k: glue_text(v) for k, v in glued(executed(ERRATA)).items()}


def numbers(text: str) -> list[float]:
    """The numbers a glued text shows, in order (thousands separators removed; '100' of 'A100' skipped)."""
    return [float(m.group(0).replace(",", "")) for m in re.finditer(r"(?<![A-Za-z\d.])\d[\d,]*(?:\.\d+)?", text)]


def shown(value: float, text: str, digits: int) -> bool:
    return round(value, digits) in [round(x, digits) for x in numbers(text)]


# glue name -> (hand value, digits shown)
HAND = {
    # Llama 3 70B on H100 SXM, BF16 weights: B* = P / BW x (bytes per param / 2) = 989.4e12 / 3.35e12 = 295.3
    "er_crit": (295, 0),
    "er_ridge": (295, 0),
    # FLOP per token at a 4K context / KV bytes per sequence: (2 x 70.55e9 + 4 x 80 x 4096 x 8192) /
    # (2 x 80 x 8 x 128 x 2 B x 4096) = 1.518e11 / 1.342e9 = 113
    "er_i_kv": (113, 0),
    # one DDR5-4800 channel = 4,800 MT/s x 8 B = 38.4 GB/s; x 8 = 307.2, x 12 = 460.8 GB/s
    "er_srv_bw": (307.2, 1),
    # HBM3 3,350 GB/s / 460.8 = 7.27, / 307.2 = 10.9
    "er_srv_ratio": (7.3, 1),
    # the glossary's own 16-20 bytes per parameter x 7e9
    "er_ft_range": (112, 0),
    # 197 TFLOP/s x 256 chips = 50,432 TFLOP/s; Google's earlier revision prints 50.63 PFLOPs
    "er_pod_calc": (50.43, 2),
    "er_pod_doc": (50.63, 2),
    # 50,630 / 256 = 197.77
    "er_pod_chip": (197.8, 1),
    # TPU jit BF16: 0.1299 / 0.1619 = 0.8023; Q_min 2,103,296 / 2,623,488 = 0.8017
    "er_t_ratio": (0.802, 3),
    "er_q_ratio": (0.802, 3),
    # 2,623,488 B / 0.1619 ms = 16.2 GB/s of 819 GB/s = 1.98 %
    "er_t_share": (2.0, 1),
    # first call / steady state over the 16 reference runs: A100 eager FP32 M=1 15.122 / 0.0788 = 191.9;
    # A100 compile FP32 M=128 4,394.837 / 0.1464 = 30,019
    "er_first_lo": (192, 0),
    "er_first_hi": (30019, 0),
    # A100 BF16 eager M=128: 62.5 us per call; floor Q_min / 1,555 GB/s = 2,623,488 / 1.555e12 = 1.687 us; 37x
    "er_a_call": (62.5, 1),
    "er_a_floor": (1.69, 2),
    "er_a_gap": (37, 0),
    # NVLink 4 one way 450 GB/s / PCIe Gen5 x16 one way (32 GT/s x 16 x 128/130 / 8 = 63.0 GB/s) = 7.14
    "er_tp_ratio": (7.1, 1),
}


@pytest.mark.parametrize("name", sorted(HAND))
def test_errata_value(errata, name):
    value, digits = HAND[name]
    assert name in errata, f"{ERRATA} no longer glues {name!r}"
    assert shown(value, errata[name], digits), f"{name} = {errata[name]!r}, expected {value}"


def test_errata_counts_and_pairs(errata):
    assert errata["er_first_n"] == "16"
    # under 1,000x: A100 eager FP32 M=1 (192), A100 eager BF16 M=1 (452), TPU eager BF16 M=128 (405),
    # M=1 (384) and FP32 M=1 (426)
    assert errata["er_first_under"] == "5"
    # like-for-like transfer ratios: A100 0.2410 / 0.0625 = 3.856 and 0.1785 / 0.0625 = 2.856;
    # TPU 0.4488 / 0.1619 = 2.772 and 1.772
    assert [round(x, 2) for x in numbers(errata["er_xfer"])] == [3.86, 2.86, 2.77, 1.77]
    # Ada FP8 dense: L40S 733 (datasheet 1,466 with sparsity / 2), RTX 4090 with FP32 accumulation 330
    assert numbers(errata["er_fp8_ada"])[-2:] == [733, 330] or {733, 330} <= set(numbers(errata["er_fp8_ada"]))


def test_errata_verdicts_follow_their_numbers(errata):
    crit, i_kv, ridge = (numbers(errata[k])[0] for k in ("er_crit", "er_i_kv", "er_ridge"))
    assert errata["er_crit_vs_32"] == ("32보다 크다" if crit > 32 else "32 이하다")
    assert errata["er_kv_never"] == ("닿지 못한다" if i_kv < ridge else "닿을 수 있다")
    calc, doc = numbers(errata["er_pod_calc"])[0], numbers(errata["er_pod_doc"])[0]
    assert errata["er_pod_same"] == ("같다" if abs(calc - doc) < 0.005 else "다르다") == "다르다"
    tp = numbers(errata["er_tp_ratio"])[0]
    assert errata["er_tp_vs_10"] == ("10배에 못 미친다" if tp < 10 else "10배를 넘는다") == "10배에 못 미친다"
    # the source's "thousands of times" fails for some runs, its "30-50x" fails for a server socket
    assert numbers(errata["er_first_lo"])[0] < 1000
    assert max(numbers(errata["er_srv_ratio"])) < 30


def test_errata_no_longer_claims_to_be_the_only_place():
    text = (ROOT / f"{ERRATA}.md").read_text(encoding="utf-8")
    assert "나오는 곳은 이 페이지뿐" not in text
    # the pages that quote a corrected source figure each point to the errata page or show the computation
    for quoted in ("배치 32", "30–50배", "12–16 GB", "50.4", "0.802", "수천 배"):
        assert quoted in text, f"the errata page does not list the quoted source figure {quoted!r}"


# --- the check script that needs only the standard library ---------------------------------------------------------
CHECK = ROOT / "tools" / "week05-check"


def test_check_script_runs_with_nothing_installed(tmp_path):
    """-I (isolated: no PYTHON* variables, no user site, no script dir on sys.path) and -S (no site-packages):
    any import of xpucalc, numpy or another installed package fails, so a pass shows the script needs none."""
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-I", "-S", str(CHECK)], capture_output=True, text=True, cwd=tmp_path,
                         timeout=60)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "불일치" not in out.stdout and out.stdout.count("[확인]") >= 25
    # the values a reader compares with the chapter, as the script prints them
    for shown_text in ("858,993,459,200 B/s", "268,435,456 FLOP", "1,311,744", "102.321 FLOP/B", "30.015 s", "5,000",
                       "두 장치의 상한이 같아지는 I: 100 FLOP/B"):
        assert shown_text in out.stdout, shown_text


def test_check_script_imports_only_the_standard_library():
    import ast
    import sys

    tree = ast.parse(CHECK.read_text(encoding="utf-8"))
    names = {a.name.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    names |= {n.module.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module}
    assert names and names <= set(sys.stdlib_module_names) | {"__future__"}, names - set(sys.stdlib_module_names)


def test_check_script_fails_on_a_wrong_value(tmp_path):
    """The script's checks can fail: a copy with one hand value changed exits 1 and names the line."""
    import subprocess
    import sys

    broken = tmp_path / "week05-check"
    broken.write_text(CHECK.read_text(encoding="utf-8").replace("268_435_456", "268_435_457"), encoding="utf-8")
    out = subprocess.run([sys.executable, "-I", "-S", str(broken)], capture_output=True, text=True, timeout=60)
    assert out.returncode == 1 and "[불일치] M = 128: 행렬곱 연산량 F" in out.stdout


# --- current-generation facts on the LLM pages ---------------------------------------------------------------------
def page_values(entry: str) -> dict[str, str]:
    return {k: glue_text(v) for k, v in glued(executed(entry)).items()}


def test_precision_page_fp8_and_fp4_support():
    v = page_values("book/llm-hardware/precision-quantization")
    # FP8 is not Hopper-only: the Ada cards of the catalog have FP8 Tensor Core peaks
    for name in ("NVIDIA H100 SXM", "NVIDIA L40S", "NVIDIA RTX 6000 Ada Generation", "NVIDIA GeForce RTX 4090"):
        assert name in v["fp8_devices"], name
    assert "A100" not in v["fp8_devices"]                                  # Ampere has no FP8
    # FP4 only on Blackwell; the catalog's one FP4 device is the B200
    assert v["fp4_devices"] == "NVIDIA B200 (HGX/DGX B200)"
    # B200 dense FP4 = 144 PFLOPS (DGX, sparse) / 8 / 2 = 9 PFLOPS = 2 x dense FP8 (72 / 8 / 2 = 4.5); computed
    assert v["b200_fp4"] == "9 PFLOP/s" and v["b200_fp4_ratio"] == "2" and v["b200_fp4_ev"] == "분석 계산"
    # stored bits per value: 4 + 8 / 16 (NVFP4: E4M3 scale per 16) and 4 + 8 / 32 (MXFP4: E8M0 scale per 32)
    assert v["nvfp4_bits"] == "4.5" and v["mxfp4_bits"] == "4.25"
    # 7e9 x 4.5 / 8 = 3.94 GB, 7e9 x 4.25 / 8 = 3.72 GB
    assert numbers(v["nvfp4_7b"])[0] == 3.94 and numbers(v["mxfp4_7b"])[0] == 3.72


def test_gpu_specs_note_column_verdict():
    v = page_values("book/llm-hardware/gpu-specs")
    # 24 GiB = 25,769,803,776 B; under the x1.2 rule a BF16 parameter needs 2.4 B -> 10.74e9 parameters
    assert numbers(v["gs_4090_max_bf16"])[0] == 10.7
    # 70B at 4 bits needs at least 70e9 x 0.5 B x 1.2 = 42 GB (more with scales and 16-bit embeddings) > 24 GiB:
    # the card count must be the shown need over 25.77 GB, rounded up, and at least 2
    need = numbers(v["gs_70b_int4"])[0]
    assert need >= 42 and int(v["gs_70b_int4_cards"]) == -(-need * 1e9 // 25_769_803_776) >= 2
