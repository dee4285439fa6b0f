"""xpucalc.llm.comm: every collective formula, worked by hand (the source's examples and small fresh numbers).

Errors are matched from their first word, the argument's name. One rank moves nothing: every volume is
0 bytes and every time 0 s at ``n_ranks == 1`` (arguments are still checked).
"""
import math
import re

import pytest

from xpucalc import llm
from xpucalc.llm import comm


def err(pattern):
    return pytest.raises(ValueError, match="^" + pattern)


# --- ring all-reduce ----------------------------------------------------------------------------------------------
def test_allreduce_by_hand():
    assert llm.allreduce_traffic_bytes(12e9, 3) == pytest.approx(16e9)        # 2 x 2/3 x 12 GB
    assert llm.allreduce_traffic_bytes(100, 4) == pytest.approx(150)          # 2 x 3/4 x 100
    assert llm.allreduce_time_s(12e9, 4e9, 3) == pytest.approx(4.0)           # 16 GB / 4 GB/s
    assert llm.allreduce_time_s(12e9, 4e9) == pytest.approx(6.0)              # large-n limit 2 x 12 / 4
    with err(r"n_ranks must be a whole number"):
        llm.allreduce_traffic_bytes(1e9, 0)
    with err(r"size_bytes must be > 0"):
        llm.allreduce_traffic_bytes(0.0, 2)
    with err(r"size_bytes must be > 0"):
        llm.allreduce_time_s(0.0, 1e9)
    with err(r"bandwidth must be > 0"):
        llm.allreduce_time_s(1e9, 0.0, 2)


def test_ring_allreduce_examples_of_the_source():
    # 14 GB over 32 GB/s: S/B = 0.4375 s; ring 2(n-1)/n S/B -> 0.4375 (n=2), 0.765625 (n=8), 0.875 (limit)
    assert llm.allreduce_time_s(14e9, 32e9, 2) == pytest.approx(0.4375)
    assert llm.allreduce_time_s(14e9, 32e9, 8) == pytest.approx(0.765625)
    assert llm.allreduce_time_s(14e9, 32e9) == pytest.approx(0.875)
    # 70B FP16 grads over NVLink 4 one way (450 GB/s): 2 x 140 / 450 = 0.6222 s; PCIe Gen4 x16 (32 GB/s): 8.75 s
    assert llm.allreduce_time_s(140e9, 450e9) == pytest.approx(0.62222, abs=1e-5)
    assert llm.allreduce_time_s(140e9, 32e9) == pytest.approx(8.75)


def test_allreduce_with_latency_by_hand():
    # 4 ranks, 1 MB, 100 GB/s one way, 10 us per call: 10 us + 2 x 3/4 x 1e6 / 1e11 = 10 + 15 = 25 us
    assert comm.allreduce_time_s(1e6, 1e11, 4, latency_s=1e-5) == pytest.approx(2.5e-5, rel=1e-12)
    # the large-n limit pays the latency too: 10 us + 2 x 1e6 / 1e11 = 30 us
    assert comm.allreduce_time_s(1e6, 1e11, latency_s=1e-5) == pytest.approx(3e-5, rel=1e-12)
    assert comm.allreduce_time_s(1e6, 1e11, 4) == pytest.approx(1.5e-5, rel=1e-12)    # default: no latency
    with err(r"latency_s must be >= 0"):
        comm.allreduce_time_s(1e6, 1e11, 2, latency_s=-1.0)
    with err(r"n_ranks must be a whole number"):
        comm.allreduce_time_s(1e6, 1e11, 0, latency_s=1e-5)


def test_one_rank_moves_nothing_and_takes_no_time():
    # one rank: 2 (1 - 1) / 1 = 0 bytes, and no collective is launched, so not even the latency is paid
    assert llm.allreduce_traffic_bytes(1e9, 1) == 0.0
    assert llm.allreduce_time_s(1e9, 1e11, 1) == 0.0
    assert comm.allreduce_time_s(1e9, 1e11, 1, latency_s=1e-5) == 0.0
    assert llm.fsdp_traffic_bytes(1e9, 1) == 0.0
    assert comm.alltoall_send_bytes(1e9, 1) == 0.0
    assert comm.alltoall_time_s(1e9, 1e11, 1, latency_s=1e-5) == 0.0
    assert comm.busbw_factor("all_reduce", 1) == 0.0
    # arguments are checked at one rank as well
    with err(r"size_bytes must be > 0"):
        llm.allreduce_traffic_bytes(0.0, 1)
    with err(r"bandwidth must be > 0"):
        comm.allreduce_time_s(1e9, 0.0, 1)
    with err(r"latency_s must be >= 0"):
        comm.alltoall_time_s(1e9, 1e11, 1, latency_s=-1.0)


# --- FSDP, all-to-all, point-to-point -------------------------------------------------------------------------------
def test_fsdp_traffic_by_hand():
    # 3 (n - 1) / n x S: n = 2, S = 10 GB -> 3 x 1/2 x 10 = 15 GB; n = 4, S = 8 GB -> 3 x 3/4 x 8 = 18 GB
    assert llm.fsdp_traffic_bytes(10e9, 2) == pytest.approx(15e9)
    assert llm.fsdp_traffic_bytes(8e9, 4) == pytest.approx(18e9)
    assert llm.fsdp_traffic_bytes(8e9, 8) == pytest.approx(21e9)              # 3 x 7/8 x 8
    # FSDP 3 (n-1)/n S vs DDP 2 (n-1)/n S -> 1.5x
    assert llm.fsdp_traffic_bytes(14e9, 8) / llm.allreduce_traffic_bytes(14e9, 8) == pytest.approx(1.5)
    with err(r"n_ranks must be a whole number"):
        llm.fsdp_traffic_bytes(8e9, 0)
    with err(r"size_bytes must be > 0"):
        llm.fsdp_traffic_bytes(0.0, 4)


def test_alltoall_by_hand():
    # 4 ranks, each holding 1 MB for all four: it keeps 1/4 and sends 3/4 = 750 kB;
    # over 100 GB/s: 7.5 us, + 10 us latency = 17.5 us
    assert comm.alltoall_send_bytes(1e6, 4) == pytest.approx(7.5e5, rel=1e-12)
    assert comm.alltoall_time_s(1e6, 1e11, 4, latency_s=1e-5) == pytest.approx(1.75e-5, rel=1e-12)
    assert llm.alltoall_time_s(1e6, 1e11, 2) == pytest.approx(5e-6, rel=1e-12)     # 1/2 x 1e6 / 1e11
    with err(r"n_ranks must be a whole number"):
        comm.alltoall_time_s(1e6, 1e11, 0)
    with err(r"size_bytes must be > 0"):
        comm.alltoall_send_bytes(-1.0, 2)
    with err(r"bandwidth must be > 0"):
        comm.alltoall_time_s(1e6, 0.0, 2)


def test_send_time_by_hand():
    # 16 kB over 100 GB/s = 0.16 us, + 10 us latency
    assert comm.send_time_s(16e3, 1e11, latency_s=1e-5) == pytest.approx(1.016e-5, rel=1e-12)
    assert comm.send_time_s(16e3, 1e11) == pytest.approx(1.6e-7, rel=1e-12)
    for args, kw, name in (((0.0, 1e11), {}, "size_bytes"), ((1e3, 0.0), {}, "bandwidth"),
                           ((1e3, 1e11), {"latency_s": -1.0}, "latency_s")):
        with err(name + " must"):
            comm.send_time_s(*args, **kw)


def test_busbw_factor_by_hand():
    # nccl-tests: all-reduce 2 (n-1)/n, all-gather and reduce-scatter (n-1)/n
    assert [comm.busbw_factor("all_reduce", n) for n in (2, 4, 8)] == [1.0, 1.5, 1.75]
    assert comm.busbw_factor("all_gather", 4) == 0.75 == comm.busbw_factor("reduce_scatter", 4)
    with err(r"op must be one of all_reduce, all_gather, reduce_scatter, got 'broadcast'"):
        comm.busbw_factor("broadcast", 2)
    with err(r"n_ranks must be a whole number"):
        comm.busbw_factor("all_reduce", 0)


# --- tensor-parallel activations -------------------------------------------------------------------------------------
def test_tp_activation_bytes_by_hand():
    # Llama-3-70B: 4096 x 8192 x 2 B = 67.1 MB per all-reduce; x 80 layers x 2 = 10.74 GB per forward
    assert llm.tp_activation_bytes_per_forward(80, 8192, 4096) == 80 * 2 * 4096 * 8192 * 2
    assert llm.tp_activation_bytes_per_forward(80, 8192, 4096) / 1e9 == pytest.approx(10.74, abs=0.01)
    # 3 layers x 3 all-reduces x (batch 2 x seq 7 x hidden 5 x 4 bytes = 280) = 2,520
    assert llm.tp_activation_bytes_per_forward(3, 5, 7, batch=2, dtype_bytes=4, allreduces_per_layer=3) == 2520
    # defaults: batch 1, 2 bytes, 2 all-reduces: 2 x 2 x (16 x 8 x 2) = 1,024
    assert llm.tp_activation_bytes_per_forward(2, 8, 16) == 1024
    for kwargs, name in (({"layers": 0}, "layers"), ({"hidden": 0}, "hidden"), ({"seq_len": 0}, "seq_len"),
                         ({"batch": 0}, "batch"), ({"dtype_bytes": 0}, "dtype_bytes"),
                         ({"allreduces_per_layer": 0}, "allreduces_per_layer")):
        args = dict(layers=2, hidden=8, seq_len=16) | kwargs
        with err(name + " must"):
            llm.tp_activation_bytes_per_forward(**args)

BAD_INPUTS = [
    ("n_ranks", lambda: llm.allreduce_time_s(14e9, 32e9, 0)),
    ("size_bytes", lambda: llm.allreduce_time_s(math.nan, 32e9, 8)),
]


@pytest.mark.parametrize("name, call", BAD_INPUTS, ids=[f"{i}-{n}" for i, (n, _) in enumerate(BAD_INPUTS)])
def test_bad_input_names_the_argument(name, call):
    # the argument's name as a whole word, so that a message naming another argument does not pass
    with pytest.raises(ValueError, match=rf"\b{re.escape(name)}\b"):
        call()
