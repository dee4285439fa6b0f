"""Tests of xpucalc.catalog.memory, xpucalc.catalog.interconnect and xpucalc.llm.parallelism (LLM hardware part, pages 1-5).

Golden values are worked out by hand in the comments (from the glossary's figures
and the PCIe standard's rates), not copied from the code's output.
"""
from __future__ import annotations

import pytest

from xpucalc.catalog import interconnect as ic
from xpucalc import llm
from xpucalc.catalog import memory
from xpucalc.llm import parallelism as par


# --- memory types ----------------------------------------------------------------
def test_memory_loader_has_every_row_of_the_source():
    keys = memory.keys()
    for k in ("hbm3e", "hbm3", "hbm2e", "gddr7", "gddr6x", "gddr6", "lpddr5x", "ddr5", "ddr4", "nvme-gen5", "nvme-gen4"):
        assert k in keys
    assert memory.bandwidth("hbm3") == 3.35e12
    assert memory.bandwidth_range("ddr5") == (70e9, 90e9)
    assert memory.bandwidth_range("gddr6x") == (1.008e12, 1.008e12)  # no range: (v, v)
    with pytest.raises(KeyError, match="hbm9"):
        memory.row("hbm9")
    t = memory.table()
    assert len(t.rows) == len(keys)


def test_offload_slowdown_ratios_by_hand():
    # HBM3 3.35 TB/s over DDR5 dual channel 90 and 70 GB/s: 3350/90 = 37.22, 3350/70 = 47.86
    lo, hi = memory.slowdown_range("hbm3", "ddr5")
    assert lo == pytest.approx(37.222, abs=1e-3)
    assert hi == pytest.approx(47.857, abs=1e-3)
    # GDDR6X 1,008 GB/s over 90 and 70: 11.2 and 14.4
    lo, hi = memory.slowdown_range("gddr6x", "ddr5")
    assert lo == pytest.approx(11.2)
    assert hi == pytest.approx(14.4)
    with pytest.raises(ValueError, match="slow_bandwidth"):
        memory.slowdown(1e12, 0)


def test_offload_decode_bound():
    # 140 GB, nothing offloaded, 3.35 TB/s: 3350/140 = 23.93 tok/s
    assert memory.offload_tokens_per_s_bound(140e9, 0, 3.35e12, 80e9) == pytest.approx(23.9286, abs=1e-4)
    # 60 GB read at 80 GB/s = 0.75 s, 80 GB at 3.35 TB/s = 0.02388 s -> 1/0.77388 = 1.2922 tok/s
    assert memory.offload_tokens_per_s_bound(140e9, 60e9, 3.35e12, 80e9) == pytest.approx(1.29219, abs=1e-4)
    with pytest.raises(ValueError, match="offloaded_bytes"):
        memory.offload_tokens_per_s_bound(140e9, 150e9, 3.35e12, 80e9)
    with pytest.raises(ValueError, match="offloaded_bytes"):
        memory.offload_tokens_per_s_bound(140e9, -1, 3.35e12, 80e9)


# --- PCIe --------------------------------------------------------------------------
def test_pcie_exact_values():
    # Gen5: 32 GT/s x 128/130 / 8 bits = 3.9385 GB/s per lane, one way
    assert ic.pcie_lane_bandwidth(5) == pytest.approx(32e9 * 128 / 130 / 8)
    assert ic.pcie_bandwidth(5, 16) == pytest.approx(63.015e9, rel=1e-4)          # 63.0 GB/s one way
    assert ic.pcie_bandwidth(5, 16, both_ways=True) == pytest.approx(126.03e9, rel=1e-4)
    assert ic.pcie_bandwidth(4, 16) == pytest.approx(31.508e9, rel=1e-4)
    assert ic.pcie_bandwidth(3, 1) == pytest.approx(8e9 * 128 / 130 / 8)
    # Gen6 FLIT: 64 GT/s x 242/256 / 8 = 7.5625 GB/s per lane
    assert ic.pcie_lane_bandwidth(6) == pytest.approx(7.5625e9)
    assert ic.pcie_nominal(5, 16, both_ways=True) == 128e9
    assert ic.encoding_efficiency("8b/10b") == pytest.approx(0.8)


def test_pcie_effective_range_and_lanes():
    # 70 % and 85 % of 63.015 GB/s: 44.11 and 53.56 GB/s
    lo, hi = ic.effective_range(ic.pcie_bandwidth(5, 16))
    assert lo == pytest.approx(44.11e9, rel=1e-3)
    assert hi == pytest.approx(53.56e9, rel=1e-3)
    assert ic.lanes_needed([8, 8, 4, 4]) == 24
    with pytest.raises(ValueError, match="lanes"):
        ic.pcie_bandwidth(5, 3)
    with pytest.raises(ValueError, match="widths"):
        ic.lanes_needed([16, 12])
    with pytest.raises(ValueError, match="low"):
        ic.effective_range(63e9, 0.9, 0.8)
    with pytest.raises(KeyError):
        ic.pcie_row(2)


def test_interconnect_ratios_by_hand():
    pcie5, pcie4 = ic.pcie_bandwidth(5, 16), ic.pcie_bandwidth(4, 16)
    # 450 / 63.015 = 7.14; 900 / 63.015 = 14.28; 450 / 31.508 = 14.28
    assert ic.one_way("nvlink4") / pcie5 == pytest.approx(7.141, abs=1e-3)
    assert ic.one_way("nvlink5") / pcie5 == pytest.approx(14.28, abs=1e-2)
    assert ic.one_way("nvlink4") / pcie4 == pytest.approx(14.28, abs=1e-2)
    # with the rounded 64 GB/s: 450 / 64 = 7.03
    assert ic.one_way("nvlink4") / ic.pcie_nominal(5) == pytest.approx(7.03125)
    with pytest.raises(ValueError, match="nvswitch"):
        ic.one_way("nvswitch")
    assert len(ic.link_table().rows) == len(ic.links()) + 2


# --- all-reduce and parallelism -------------------------------------------------------
def test_ring_schedule_matches_the_formula():
    steps = par.ring_allreduce_steps(4)
    assert len(steps) == 1 + 2 * 3
    everyone = frozenset(range(4))
    after_rs = steps[3].holdings
    for r in range(4):
        assert after_rs[r][(r + 1) % 4] == everyone  # rank r owns the sum of chunk r+1
    for r in range(4):
        assert all(c == everyone for c in steps[-1].holdings[r])
    # each rank sends one chunk of S/4 per step: 6 steps x S/4 = 1.5 S = 2 (n-1)/n S
    sent = sum(1 for s in steps for src, _, _ in s.sends if src == 0)
    assert sent / 4 == pytest.approx(2 * 3 / 4)
    with pytest.raises(ValueError, match="n_ranks"):
        par.ring_allreduce_steps(1)


def test_allreduce_examples_of_the_source():
    # 140 GB over 450 GB/s, large-n limit: 2 x 140 / 450 = 0.6222 s; over 32 GB/s: 8.75 s
    assert llm.allreduce_time_s(140e9, 450e9) == pytest.approx(0.62222, abs=1e-5)
    assert llm.allreduce_time_s(140e9, 32e9) == pytest.approx(8.75)
    # DDP 7B: 14 GB over 32 GB/s: n=2 -> 0.4375, n=8 -> 2*7/8*14/32 = 0.765625, limit 0.875
    assert llm.allreduce_time_s(14e9, 32e9, 2) == pytest.approx(0.4375)
    assert llm.allreduce_time_s(14e9, 32e9, 8) == pytest.approx(0.765625)
    # TP activations of Llama-3-70B: 4096 x 8192 x 2 B = 67.1 MB per all-reduce; x 80 x 2 = 10.74 GB
    assert llm.tp_activation_bytes_per_forward(80, 8192, 4096) == 80 * 2 * 4096 * 8192 * 2


def test_fsdp_pipeline_3d():
    # FSDP: 3 (n-1)/n S vs DDP 2 (n-1)/n S -> 1.5x
    assert par.fsdp_traffic_bytes(14e9, 8) / llm.allreduce_traffic_bytes(14e9, 8) == pytest.approx(1.5)
    assert par.fsdp_traffic_bytes(8e9, 8) == pytest.approx(21e9)
    # 4 stages, 4 micro-batches: 3/7 idle; 4 stages, 32 micro-batches: 3/35
    assert par.pipeline_bubble_fraction(4, 4) == pytest.approx(3 / 7)
    assert par.pipeline_bubble_fraction(4, 32) == pytest.approx(3 / 35)
    assert par.pipeline_bubble_fraction(1, 8) == 0
    assert par.gpus_3d(8, 16, 128) == 16_384
    with pytest.raises(ValueError, match="microbatches"):
        par.pipeline_bubble_fraction(4, 0)


# --- the decision flow -------------------------------------------------------------------
GB = 1e9


def test_suggest_fits_on_one_gpu_gives_ddp():
    s = par.suggest(14 * GB, 80 * GB, 8, 1, True, False)
    assert s.feasible and s.strategy.startswith("DDP") and (s.tp, s.pp, s.dp) == (1, 1, 8)
    one = par.suggest(14 * GB, 80 * GB, 1, 1, False, False)
    assert one.dp == 1 and "단일 GPU" in one.strategy


def test_suggest_nvlink_node_gives_tp():
    s = par.suggest(140 * GB, 80 * GB, 8, 1, True, False)
    assert (s.tp, s.pp, s.dp) == (8, 1, 1) and "TP = 8" in s.strategy and not s.fsdp


def test_suggest_pcie_node_gives_fsdp_or_pp():
    s = par.suggest(140 * GB, 48 * GB, 4, 1, False, False)
    assert s.fsdp and s.tp == 1 and "FSDP" in s.strategy and "PP" in s.strategy


def test_suggest_multi_node():
    # 1,400 GB over 80 GB GPUs, 8 per node (640 GB per node): ceil(1400/640) = 3 stages,
    # but 3 does not divide 4 nodes, so PP = 4 and DP = 1
    s = par.suggest(1400 * GB, 80 * GB, 8, 4, True, False)
    assert (s.tp, s.pp, s.dp) == (8, 4, 1)
    # 1,000 GB on 16 nodes: ceil(1000/640) = 2 stages, 16/2 = 8 pipelines
    s = par.suggest(1000 * GB, 80 * GB, 8, 16, True, True)
    assert (s.tp, s.pp, s.dp) == (8, 2, 8) and s.ep and "EP" in s.strategy
    # fits in one node: TP inside, data parallel across nodes
    s = par.suggest(300 * GB, 80 * GB, 8, 2, True, False)
    assert (s.tp, s.pp, s.dp) == (8, 1, 2)
    assert any("InfiniBand" in r for r in s.reasons)
    s = par.suggest(300 * GB, 48 * GB, 4, 2, False, False)
    assert s.fsdp and s.dp == 8


def test_suggest_impossible_is_a_result_not_an_error():
    s = par.suggest(2000 * GB, 24 * GB, 2, 1, False, True)
    assert not s.feasible and not s.ep and "불가능" in s.strategy


@pytest.mark.parametrize("kwargs, name", [
    (dict(gpus_per_node=0), "gpus_per_node"),
    (dict(n_nodes=0), "n_nodes"),
    (dict(model_bytes_needed=-1.0), "model_bytes_needed"),
    (dict(gpu_memory_bytes=0.0), "gpu_memory_bytes"),
    (dict(gpus_per_node=2.5), "gpus_per_node"),
    (dict(has_nvlink=1), "has_nvlink"),
    (dict(is_moe="no"), "is_moe"),
    (dict(model_bytes_needed=float("nan")), "model_bytes_needed"),
])
def test_suggest_bad_input_names_the_argument(kwargs, name):
    args = dict(model_bytes_needed=140 * GB, gpu_memory_bytes=80 * GB, gpus_per_node=8, n_nodes=1,
                has_nvlink=True, is_moe=False)
    args.update(kwargs)
    with pytest.raises(ValueError, match=name):
        par.suggest(**args)
