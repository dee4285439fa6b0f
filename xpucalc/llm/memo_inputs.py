"""Inputs of the workload memo: :class:`WorkloadInputs`, its checks, and the model it names.

Every check raises :class:`MemoInputError`, a ``ValueError`` that carries the argument's
name (``.argument``) and a Korean message saying how to fix it (``.message``); the lab
shows the two as a table.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..catalog import devices
from .._check import PLAUSIBLE_FLOOR, _as_float
from . import Model, models

#: Goals the memo understands, with their Korean names.
GOALS: dict[str, str] = {
    "serving": "추론 서빙",
    "lora": "LoRA 파인튜닝",
    "full_ft": "전체 파인튜닝",
    "training": "학습 예산 (토큰 수와 MFU)",
}

#: What the reader wants first from a serving layout.
PRIORITIES: dict[str, str] = {"latency": "요청 하나의 속도(지연) 우선", "throughput": "전체 처리량 우선"}

#: Bytes per parameter a reader may pick, with the format names they stand for.
PRECISION_NAMES: dict[float, str] = {4.0: "FP32", 2.0: "FP16/BF16", 1.0: "FP8/INT8", 0.5: "INT4/NF4"}


class MemoInputError(ValueError):
    """A bad input to the memo, carrying the argument's name and how to fix it.

    Attributes:
        argument: the name of the argument to fix (``"n_gpus"``).
        message: what is wrong and how to fix it, in Korean.

    ``str(error)`` is ``"<argument>: <message>"``.
    """

    def __init__(self, argument: str, message: str):
        self.argument = argument
        self.message = message
        super().__init__(f"{argument}: {message}")


def _positive(value: object, name: str, what: str) -> float:
    try:
        x = _as_float(value, name)
    except ValueError:
        raise MemoInputError(name, f"{what} — 유한한 숫자여야 합니다. 받은 값: {value!r}") from None
    if x <= 0:
        raise MemoInputError(name, f"{what} — 0보다 커야 합니다. 받은 값: {value!r}")
    return x


def _count(value: object, name: str, what: str) -> int:
    try:
        x = _as_float(value, name)
    except ValueError:
        raise MemoInputError(name, f"{what} — 1 이상의 정수여야 합니다. 받은 값: {value!r}") from None
    if x < 1 or x != int(x):
        raise MemoInputError(name, f"{what} — 1 이상의 정수여야 합니다. 받은 값: {value!r}")
    return int(x)


def _figure(value: object, name: str, what: str, unit: str) -> float:
    """A positive hardware figure in SI ``unit``; a value that looks typed in GB, GB/s or TFLOP/s is refused."""
    x = _positive(value, name, what)
    floor, meant, exp = PLAUSIBLE_FLOOR[unit]
    if x < floor:
        raise MemoInputError(name, f"{what} — {value!r}는 {meant} 단위로 적은 값으로 보입니다. 이 메모는 {unit} 단위를 "
                                   f"씁니다: {x:g} {meant}라면 {x:g}e{exp}로 적으세요.")
    return x


def _flag(value: object, name: str, what: str) -> bool:
    if not isinstance(value, bool):
        raise MemoInputError(name, f"{what} — True 또는 False여야 합니다(따옴표 없이). 받은 값: {value!r}")
    return value


@dataclass(frozen=True)
class WorkloadInputs:
    """One reader's hardware and job.

    Model: ``model`` (a catalog key such as ``"llama-3-70b"``, or a Hugging Face ``config.json``
    dict) or, with scalar rules only, ``n_params`` (+ optional ``layers``, ``kv_heads``, ``head_dim``).
    Hardware: either ``gpu`` (a catalog key, see ``xpucalc.devices.keys()``) or, by hand,
    ``gpu_name`` + ``gpu_memory`` (bytes) + ``bandwidth`` (bytes/s) + ``peak_flops`` (dense FLOP/s).
    Hand-entered figures override the catalog's when both are given. A catalog device
    without a published peak (Apple M3 Ultra) still gets decode estimates (bandwidth-bound).

    Args:
        model: catalog key or config dict (preferred over ``n_params``).
        n_params: model parameters (count, 7e9 for a 7B model) when no ``model`` is given.
        bytes_per_param: bytes per weight (2 FP16/BF16, 1 FP8/INT8, 0.5 INT4).
        goal: one of ``GOALS`` (``serving``, ``lora``, ``full_ft``, ``training``).
        gpu: catalog key, or None for hand-entered hardware.
        n_gpus: GPUs used together (>= 1).
        nvlink: the GPUs are joined by NVLink/NVSwitch.
        gpus_per_node: GPUs in one server (default: min(n_gpus, 8)).
        tp, pp: serving layout (tensor-parallel degree, pipeline stages); None lets the memo choose.
        seq_len: tokens per sequence (prompt + output for serving).
        batch: sequences processed together (per replica when serving).
        layers, kv_heads, head_dim: model shape for the KV cache when only ``n_params`` is given.
        kv_bytes: bytes per KV element (2 for FP16/BF16, 1 for an FP8 KV cache).
        train_tokens: training tokens for the time estimate (count).
        mfu: model FLOPs utilisation, a fraction in (0, 1] (also used for prefill).
        precision: catalog precision of the peak to use (``bf16``; ``fp16`` is tried next).
        is_moe: mixture-of-experts model (scalar path only; a ``model`` knows it).
        priority: ``"latency"`` or ``"throughput"`` (which layout the memo picks for serving).
        system_ram: host memory, bytes (for a CPU-offload estimate when the GPUs are short).
        storage: where the weights are stored, free text (e.g. ``"NVMe SSD 2 TB"``).
        storage_bandwidth: read speed of that storage, bytes/s (for the load time).
        interconnect: how the GPUs are joined, free text (``"NVLink"``, ``"PCIe"``, ``"InfiniBand"``), shown in
            the memo; the estimate follows ``nvlink``, so a text naming NVLink with ``nvlink=False`` (or PCIe with
            ``nvlink=True``) is refused.
        bottleneck: what the reader sees as the bottleneck today, free text.
    """

    n_params: float | None = None
    bytes_per_param: float = 2.0
    goal: str = "serving"
    gpu: str | None = None
    n_gpus: int = 1
    nvlink: bool = False
    gpus_per_node: int | None = None
    gpu_name: str | None = None
    gpu_memory: float | None = None
    bandwidth: float | None = None
    peak_flops: float | None = None
    seq_len: int = 4096
    batch: int = 1
    layers: int | None = None
    kv_heads: int | None = None
    head_dim: int | None = None
    kv_bytes: float = 2.0
    train_tokens: float | None = None
    mfu: float = 0.4
    precision: str = "bf16"
    is_moe: bool = False
    model: str | dict | None = None
    tp: int | None = None
    pp: int | None = None
    priority: str = "latency"
    system_ram: float | None = None
    storage: str | None = None
    storage_bandwidth: float | None = None
    interconnect: str | None = None
    bottleneck: str | None = None

    def __post_init__(self) -> None:
        if self.model is None and self.n_params is None:
            raise MemoInputError("model", "모델을 적어야 합니다: model=\"llama-3-8b\"처럼 카탈로그 키나 config.json을 읽은 딕셔너리, "
                                          f"또는 파라미터 수 n_params=7e9. 카탈로그 키: {', '.join(models.keys())}")
        if self.model is not None and self.n_params is not None:
            raise MemoInputError("n_params", "model과 n_params는 둘 중 하나만 적습니다(model이 있으면 파라미터 수는 "
                                             "구조에서 계산합니다).")
        if self.model is not None:
            resolve_model(self.model)
        else:
            _positive(self.n_params, "n_params", "모델 파라미터 수")
        _positive(self.bytes_per_param, "bytes_per_param", "파라미터당 바이트")
        if self.goal not in GOALS:
            raise MemoInputError("goal", f"목표는 {', '.join(GOALS)} 가운데 하나여야 합니다. 받은 값: {self.goal!r}")
        if self.priority not in PRIORITIES:
            raise MemoInputError("priority", f"'latency' 또는 'throughput'이어야 합니다. 받은 값: {self.priority!r}")
        _count(self.n_gpus, "n_gpus", "GPU 수")
        for name, what in (("gpus_per_node", "노드당 GPU 수"), ("tp", "TP 차수"), ("pp", "PP 단계 수")):
            if getattr(self, name) is not None:
                _count(getattr(self, name), name, what)
        _flag(self.nvlink, "nvlink", "NVLink 연결 여부")
        _flag(self.is_moe, "is_moe", "MoE 모델 여부")
        if self.precision not in devices.PRECISIONS:
            raise MemoInputError("precision", f"카탈로그가 아는 정밀도({', '.join(devices.PRECISIONS)}, 소문자)가 아닙니다. "
                                              f"받은 값: {self.precision!r}. 다른 형식이면 dense 최대 처리율을 peak_flops=...(FLOP/s)로 "
                                              "직접 적으세요.")
        if self.interconnect is not None:
            text = str(self.interconnect).lower()
            if ("nvlink" in text or "nvswitch" in text) and not self.nvlink:
                raise MemoInputError("interconnect", f"{self.interconnect!r}라고 적었지만 nvlink=False입니다. 추정은 nvlink를 "
                                                     "따르므로 NVLink로 연결되어 있으면 nvlink=True로 적으세요.")
            if "pcie" in text and self.nvlink:
                raise MemoInputError("interconnect", f"{self.interconnect!r}라고 적었지만 nvlink=True입니다. 추정은 nvlink를 "
                                                     "따르므로 PCIe로만 연결되어 있으면 nvlink=False로 적으세요.")
        if self.pp is not None and self.tp is None:
            raise MemoInputError("tp", "pp를 적었다면 tp도 적어야 합니다(TP를 쓰지 않으면 tp=1).")
        if self.tp is not None and self.n_gpus % (self.tp * (self.pp or 1)):
            raise MemoInputError("tp", f"tp × pp = {self.tp * (self.pp or 1)}가 GPU 수 {self.n_gpus}를 나누어야 "
                                       "합니다(나머지 GPU는 같은 구성의 사본이 됩니다).")
        _count(self.seq_len, "seq_len", "시퀀스 길이")
        _count(self.batch, "batch", "배치 크기")
        _positive(self.kv_bytes, "kv_bytes", "KV 원소당 바이트")
        try:
            m = _as_float(self.mfu, "mfu")
        except ValueError:
            raise MemoInputError("mfu", f"MFU는 숫자여야 합니다. 받은 값: {self.mfu!r}") from None
        if not 0 < m <= 1:
            raise MemoInputError("mfu", f"MFU는 0보다 크고 1 이하인 비율입니다(40 %는 0.4로 적습니다). "
                                        f"받은 값: {self.mfu!r}. 1을 넘는 MFU는 최대 처리율보다 빠르다는 뜻이라 불가능합니다.")
        shape = (self.layers, self.kv_heads, self.head_dim)
        if any(v is not None for v in shape) and any(v is None for v in shape):
            raise MemoInputError("layers", "KV 캐시를 계산하려면 layers, kv_heads, head_dim 셋을 모두 적어야 합니다.")
        for name in ("layers", "kv_heads", "head_dim"):
            if getattr(self, name) is not None:
                _count(getattr(self, name), name, name)
        if self.train_tokens is not None:
            _positive(self.train_tokens, "train_tokens", "학습 토큰 수")
        for name, what, unit in (("system_ram", "시스템 RAM(바이트)", "bytes"),
                                 ("storage_bandwidth", "스토리지 읽기 속도(바이트/s)", "bytes/s")):
            if getattr(self, name) is not None:
                _figure(getattr(self, name), name, what, unit)
        if self.goal == "training" and self.train_tokens is None:
            raise MemoInputError("train_tokens", "목표가 training이면 학습 토큰 수(train_tokens)를 적어야 합니다.")
        if self.gpu is not None and self.gpu not in devices.keys():
            raise MemoInputError("gpu", f"카탈로그에 없는 키 {self.gpu!r}입니다. 쓸 수 있는 키: {', '.join(devices.keys())}. "
                                        "목록에 없으면 gpu=None으로 두고 gpu_name, gpu_memory, bandwidth, "
                                        "peak_flops를 직접 적으세요.")
        if self.gpu is None:
            missing = [n for n in ("gpu_memory", "bandwidth", "peak_flops") if getattr(self, n) is None]
            if missing:
                raise MemoInputError(missing[0], "카탈로그 키(gpu)를 주지 않았으면 GPU 메모리(바이트), 대역폭(바이트/s), "
                                                 f"dense 최대 처리율(FLOP/s)을 직접 적어야 합니다. 빠진 항목: {', '.join(missing)}")
        for name, what, unit in (("gpu_memory", "GPU 메모리", "bytes"), ("bandwidth", "메모리 대역폭", "bytes/s"),
                                 ("peak_flops", "최대 처리율", "FLOP/s")):
            if getattr(self, name) is not None:
                _figure(getattr(self, name), name, what, unit)
        if self.tp is not None and self.model is not None:
            mdl = resolve_model(self.model)
            if self.tp not in mdl.valid_tp():
                raise MemoInputError("tp", f"tp 값 {self.tp}: tp는 {mdl.name}의 어텐션 헤드 {mdl.num_heads}개와 "
                                           f"KV 헤드 {mdl.num_kv_heads}개를 모두 나누는 수여야 합니다. 가능한 값: {mdl.valid_tp()}")


def resolve_model(model: str | dict) -> Model:
    """The :class:`Model` of a catalog key or a config dict; MemoInputError('model') otherwise."""
    if isinstance(model, str):
        if model not in models.keys():
            raise MemoInputError("model", f"카탈로그에 없는 모델 {model!r}입니다. 쓸 수 있는 키: {', '.join(models.keys())}. "
                                          "목록에 없으면 config.json을 딕셔너리로 읽어 model=에 넘기세요.")
        return models.get(model)
    if isinstance(model, dict):
        try:
            return Model.from_hf_config(model)
        except ValueError as exc:
            raise MemoInputError("model", f"config 딕셔너리를 읽지 못했습니다: {exc}") from None
    raise MemoInputError("model", f"카탈로그 키(문자열)나 config.json을 읽은 딕셔너리여야 합니다. 받은 값: {model!r}")


__all__ = ["GOALS", "MemoInputError", "PRECISION_NAMES", "PRIORITIES", "WorkloadInputs", "resolve_model"]
