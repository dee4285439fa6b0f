"""Helpers shared by the catalog tests (tests/catalog/ and tests/render/test_catalog_tables.py)."""
from xpucalc.catalog import devices, store


def all_figures():
    """Every figure of the device catalog as ``(device key, field, Figure)``.

    ``field`` is ``"memory"``, ``"bandwidth"`` or ``"tdp"`` for the main figures, ``"peak"`` for each
    peak rate and ``"extra"`` for each extra documented figure.
    """
    for key in devices.keys():
        e = devices.entry(key)
        for field in devices.FIELDS:
            if getattr(e, field) is not None:
                yield key, field, getattr(e, field)
        for p in e.peaks:
            yield key, "peak", p
        for f in e.extra:
            yield key, "extra", f


def use_data(monkeypatch, name, data):
    """Make every catalog read ``data`` for the data file ``name`` (a small fake catalog) for one test."""
    real = store.load_json
    monkeypatch.setattr(store, "load_json", lambda n: data if n == name else real(n))


def fig(value, unit, evidence="문서 확인", **fields):
    """A figure dict as the data files spell it, with placeholder provenance (override any field)."""
    return {"value": value, "unit": unit, "as_published": None, "conditions": "test figure", "source": "s1",
            "checked": "2026-01-02", "evidence": evidence, **fields}


GIB = 2**30

#: A small device catalog whose every cell is known, for oracles of devices.py and of the spec table:
#: e.g. 1.2346e15 FLOP/s shows as "1.235 PFLOP/s" (3 decimals), 1.2346 x 2^30 B binary as "1.235 GiB".
FAKE_DEVICES = {
    "sources": {"s1": {"title": "Source One", "url": None, "checked": "2026-01-02"},
                "s2": {"title": "Source Two", "url": None, "checked": "2026-01-03"}},
    "devices": {
        "x": {
            "name": "Chip X", "vendor": "V", "kind": "gpu", "form_factor": "card", "scope": "board", "notes_ko": "메모",
            "peaks": [
                fig(1.2346e15, "FLOP/s", precision="bf16", sparse=False, accumulate="fp32", scope="board",
                    as_published="1,234.6 TFLOPS"),
                fig(2.4692e15, "FLOP/s", "분석 계산", precision="bf16", sparse=True, source="elsewhere"),
                fig(2.0e15, "OP/s", precision="int8", sparse=False, accumulate="int16"),
                fig(1.0e15, "OP/s", precision="int8", sparse=False, accumulate="int32"),
                fig(3.0e15, "FLOP/s", "이번 조사에서 미확인", precision="fp8", sparse=None),
                fig(1.6e16, "FLOP/s", "이번 조사에서 미확인", precision="fp16", sparse=None, as_published="16 PF*"),
                fig(1.7e16, "FLOP/s", "이번 조사에서 미확인", precision="fp16", sparse=None, as_published="other"),
                fig(1.0e14, "FLOP/s", precision="fp32", sparse=True),
            ],
            "memory": fig(1.2346 * GIB, "B", binary=True),
            "tdp": fig(450, "W", as_published="450 W"),
        },
        "y": {
            "name": "Chip Y", "vendor": "V", "kind": "npu", "form_factor": "chip", "scope": "chip", "notes_ko": "메모",
            "peaks": [fig(None, "FLOP/s", "미공개", precision="fp64", sparse=False)],
            "memory": fig(None, "B", "미공개"),
            "bandwidth": fig(None, "B/s", "미공개"),
        },
        "z": {
            "name": "Chip Z", "vendor": "V", "kind": "gpu", "form_factor": "card", "scope": "card", "notes_ko": "메모",
            "peaks": [fig(5e12, "FLOP/s", precision="fp64", sparse=False, source="s2"),
                      fig(4e14, "FLOP/s", precision="bf16", sparse=False)],
            "bandwidth": fig(1e12, "B/s", as_published="1 TB/s"),
        },
        "w": {"name": "Chip W", "vendor": "V", "kind": "gpu", "form_factor": "card", "scope": "board", "notes_ko": "메모",
              "peaks": [], "extra": [fig(3, "count", label="L1")]},
    },
}


#: A two-row memory catalog with the optional fields left out (tests/catalog/test_memory.py, the memory table).
FAKE_MEMORY = {
    "sources": {"s": {"title": "Src", "checked": "2026-01-01"}, "t": {"title": "Other", "checked": "2026-01-02"}},
    "rows": [
        # no examples list, no as_published, no typical use; stored value and range with 4 significant digits
        {"key": "m1", "name": "Mem 1", "bandwidth": 1.2346e9, "bandwidth_range": [1.2346e9, 2.4692e9],
         "bandwidth_from": "stored", "source": "s", "checked": "2026-01-01", "evidence": "문서 확인"},
        # an example with a rate but no width gets no bandwidth
        {"key": "m2", "name": "Mem 2", "bandwidth": 5e9, "bandwidth_range": None, "bandwidth_from": "stored",
         "examples": [{"device": None, "transfer_rate_mt_s": 6400}], "source": "t", "checked": "2026-01-02",
         "evidence": "분석 계산"},
    ],
}
