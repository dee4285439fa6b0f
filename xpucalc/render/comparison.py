"""The 11-item comparison table for one task on several devices.

Every filled cell carries an evidence label; an empty cell is never left blank
but marked with why it is empty (미공개 / 이번 조사에서 미확인 / 아직 미측정).
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ..evidence import EMPTY_LABELS, NOT_MEASURED, check
from .table import Table

#: (number, item, what every participant fixes in common, what to record per device) — Korean.
ITEMS: tuple[tuple[int, str, str, str], ...] = (
    (1, "작업·입력", "Y = ReLU(XW + b), W:[1024,1024], b:[1024], 추론",
     "이 연산과 입력 크기를 지원하는지, 모델·그래프 변환이 필요한지"),
    (2, "정확도", "기준 출력(FP64 또는 FP32 참조)과 허용오차",
     "출력이 허용오차를 통과했는지; 아직 실행하지 않았다면 미검증"),
    (3, "정밀도", "같은 정밀도의 커널 비교인지, 품질 목표를 맞춘 모델 비교인지",
     "입력·가중치·내부 계산·누산·출력 자료형, 양자화·희소성 사용 여부"),
    (4, "배치", "M = 128과 M = 1을 따로", "배치마다 지연시간(ms/batch)과 처리량(samples/s)"),
    (5, "장치 단위", "칩 1개인지 호스트·시스템 전체인지 하나로 통일",
     "정확한 제품명·세대·폼팩터·칩 수·호스트 구성"),
    (6, "소프트웨어", "재현할 수 있게 실행 경로와 버전을 적는다", "프레임워크·컴파일러·런타임·드라이버·플러그인 버전"),
    (7, "메모리", "입력·가중치·출력·작업 공간에 필요한 용량", "가용 용량, 데이터가 상주하는 곳, 호스트↔장치 복사 포함 여부"),
    (8, "실행 분할", "행렬곱 + 편향 덧셈 + ReLU 전체를 포함", "커널 결합 여부, 실행된 커널 수, 다른 장치로 넘어간 구간"),
    (9, "시간 경계", "최초 컴파일·준비 실행과 반복 실행을 따로 잰다", "동기화 방법, 반복 횟수, 중앙값과 분포"),
    (10, "비용·전력", "비교한다면 같은 측정 범위·품질·지연 조건에서", "TDP / 평균 전력(W) / 요금의 근거와 확인 시점"),
    (11, "증거 상태", "모든 수치와 설명에 근거 종류를 붙인다", "문서 확인 / 분석 계산 / CPU 동작 확인 / 시뮬레이션 / 실측 / 미확인"),
)


@dataclass
class Cell:
    """One filled cell: the text and its evidence label."""

    text: str
    evidence: str


@dataclass
class ComparisonTable:
    """The 11-item table for ``devices`` (column titles).

    Fill cells with :meth:`set`; render with :meth:`to_table` (or display it in a
    notebook). Unfilled cells render as ``아직 미측정`` unless another empty-cell
    label is set explicitly.
    """

    devices: list[str]
    cells: dict[tuple[int, str], Cell] = field(default_factory=dict)
    caption: str = ""

    def __post_init__(self) -> None:
        if not self.devices:
            raise ValueError("devices must name at least one column")
        if len(set(self.devices)) != len(self.devices):
            raise ValueError(f"devices has duplicates: {self.devices}")

    def _item(self, item: int) -> None:
        if isinstance(item, bool) or not isinstance(item, int) or not 1 <= item <= len(ITEMS):
            raise ValueError(f"item must be a number from 1 to {len(ITEMS)}, got {item!r}")

    def set(self, item: int, device: str, text: str, evidence: str) -> "ComparisonTable":
        """Fill item ``item`` (1-11) for ``device`` with ``text`` and an evidence label; returns self."""
        self._item(item)
        if device not in self.devices:
            raise KeyError(f"device {device!r} is not a column; columns: {self.devices}")
        check(evidence)
        if evidence in EMPTY_LABELS and text.strip() == "":
            text = evidence
        self.cells[(item, device)] = Cell(text, evidence)
        return self

    def mark(self, item: int, device: str, label: str, reason: str = "") -> "ComparisonTable":
        """Mark a cell as empty for a stated reason: label is 미공개, 이번 조사에서 미확인 or 아직 미측정."""
        if label not in EMPTY_LABELS:
            raise ValueError(f"label must be one of {EMPTY_LABELS} for an empty cell, got {label!r}")
        return self.set(item, device, f"{label}" + (f" ({reason})" if reason else ""), label)

    def get(self, item: int, device: str) -> Cell:
        """The cell for ``item`` and ``device`` (an unfilled cell reads 아직 미측정)."""
        self._item(item)
        if device not in self.devices:
            raise KeyError(f"device {device!r} is not a column; columns: {self.devices}")
        return self.cells.get((item, device), Cell(NOT_MEASURED, NOT_MEASURED))

    def missing(self) -> list[tuple[int, str]]:
        """(item, device) pairs with no number yet: unfilled or marked with an empty-cell label."""
        return [(i, d) for i, *_ in ITEMS for d in self.devices if self.get(i, d).evidence in EMPTY_LABELS]

    def to_table(self, with_basis: bool = False) -> Table:
        """Render as a :class:`Table`; each cell ends with its evidence label in brackets."""
        headers = ["번호", "비교 항목"] + (["공통 기준"] if with_basis else []) + list(self.devices)
        t = Table(headers, caption=self.caption)
        for num, name, basis, _ in ITEMS:
            row: list[str] = [str(num), name] + ([basis] if with_basis else [])
            for d in self.devices:
                c = self.get(num, d)
                row.append(c.text if c.evidence in EMPTY_LABELS else f"{c.text} [{c.evidence}]")
            t.add(*row)
        return t

    @staticmethod
    def template() -> Table:
        """The empty template: item, what everyone fixes, what to record per device."""
        t = Table(["번호", "비교 항목", "모두가 공통으로 고정할 기준", "장치별로 조사·기록할 내용"])
        for num, name, basis, record in ITEMS:
            t.add(num, name, basis, record)
        return t

    def _repr_html_(self) -> str:
        return self.to_table().to_html()
