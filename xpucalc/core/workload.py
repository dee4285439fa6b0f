"""Workloads: how many FLOP a job does and how many bytes it moves."""
from __future__ import annotations

from dataclasses import dataclass

from .._check import check_bool, positive, positive_int


@dataclass(frozen=True)
class Workload:
    """A job reduced to its operation count and its traffic over one memory boundary.

    Args:
        name: display name.
        flops: operations performed, FLOP (multiply-add counted as 2).
        bytes: bytes read and written over the memory boundary the roofline uses
            (cumulative traffic, not the capacity held at once).
        sparse: True if the job really has the 2:4 structured sparsity a sparse
            peak assumes; only then may a sparse peak be applied to it.
    """

    name: str
    flops: float
    bytes: float
    sparse: bool = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "flops", positive(self.flops, "flops"))
        object.__setattr__(self, "bytes", positive(self.bytes, "bytes"))
        check_bool(self.sparse, "sparse")

    @property
    def intensity(self) -> float:
        """Arithmetic intensity, FLOP per byte (= flops / bytes)."""
        return self.flops / self.bytes


@dataclass(frozen=True)
class LinearLayer(Workload):
    """Y = ReLU(XW + b) with X [m, k], W [k, n], b [n], Y [m, n], fused, each tensor moved once.

    ``flops`` counts the matrix product only (2mkn); :attr:`epilogue_ops` gives the
    bias additions and ReLU comparisons (mn each) that the source lists separately.
    """

    m: int = 1
    k: int = 1
    n: int = 1
    dtype_bytes: float = 2

    @property
    def elements(self) -> dict[str, int]:
        """Element count of each tensor: X, W, b, Y."""
        return {"X": self.m * self.k, "W": self.k * self.n, "b": self.n, "Y": self.m * self.n}

    @property
    def shapes(self) -> dict[str, tuple[int, ...]]:
        """Shape of each tensor: X, W, b, Y."""
        return {"X": (self.m, self.k), "W": (self.k, self.n), "b": (self.n,), "Y": (self.m, self.n)}

    @property
    def moved_elements(self) -> int:
        """Elements read or written once each: mk + kn + n + mn."""
        return sum(self.elements.values())

    @property
    def epilogue_ops(self) -> int:
        """Element-wise operations after the product: bias add (mn) + ReLU (mn)."""
        return 2 * self.m * self.n


def linear_layer(m: int, k: int, n: int, dtype_bytes: float) -> LinearLayer:
    """The common example Y = ReLU(XW + b) as a workload.

    Args:
        m: batch rows of X (the source uses 128 and 1).
        k: input features (1024 in the source).
        n: output features (1024 in the source).
        dtype_bytes: bytes per element (2 for BF16/FP16, 4 for FP32).

    Returns:
        a :class:`LinearLayer` with ``flops = 2mkn`` and
        ``bytes = dtype_bytes * (mk + kn + n + mn)``: the minimum traffic when the
        three operations are fused and X, W, b are read once and Y written once.
    """
    m_, k_, n_ = positive_int(m, "m"), positive_int(k, "k"), positive_int(n, "n")
    s = positive(dtype_bytes, "dtype_bytes")
    elements = m_ * k_ + k_ * n_ + n_ + m_ * n_
    return LinearLayer(name=f"Y = ReLU(XW + b), M={m_}, {s:g} B/원소", flops=2 * m_ * k_ * n_,
                       bytes=s * elements, m=m_, k=k_, n=n_, dtype_bytes=s)
