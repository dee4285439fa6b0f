"""The forms of the in-page calculators: fields, their HTML, and reading what a reader typed, in Korean.

A calculator (see :mod:`xpucalc.render.calculators`) is a list of :class:`Field`. The build writes
:func:`form_html` into the page; in the browser, Pyodide hands the form's values (strings, as the
browser has them) to :func:`parse`, which returns SI values or, per field, a Korean message saying
what to fix. Nothing here computes a figure: it only reads and lays out.

A field may be shown only when another field has one of some values (``when``); a hidden field is
neither parsed nor checked, and the page's script hides it by the same rule (``data-when``).
"""
from __future__ import annotations

import html
import math
from dataclasses import dataclass


@dataclass(frozen=True)
class Field:
    """One input of a calculator form.

    Args:
        name: the value's key (and, where it is one, the argument name of the xpucalc function).
        label: what the reader sees, Korean.
        kind: ``"number"`` (a real > 0), ``"int"`` (a whole number >= 1), ``"select"`` or ``"text"``
            (free text), ``"json"`` (a ``config.json`` pasted as text).
        default: the value the form starts with, as the form shows it (a string).
        unit: the unit the reader types in, shown after the box (``"TFLOP/s"``).
        scale: SI value of one ``unit`` (1e12 for TFLOP/s); a number is returned times ``scale``.
        options: ``(value, label)`` pairs of a select.
        optional: an empty box is allowed and read as None.
        when: ``(field, values)``: the field is shown (and read) only while ``field`` has one of ``values``.
        help: a short Korean hint under the box.
    """

    name: str
    label: str
    kind: str = "number"
    default: str = ""
    unit: str = ""
    scale: float = 1.0
    options: tuple[tuple[str, str], ...] = ()
    optional: bool = False
    when: tuple[str, tuple[str, ...]] | None = None
    help: str = ""

    def __post_init__(self) -> None:
        if self.kind not in ("number", "int", "select", "text", "json"):
            raise ValueError(f"kind must be number, int, select, text or json, got {self.kind!r}")
        if self.kind == "select" and self.default not in [v for v, _ in self.options]:
            raise ValueError(f"field {self.name!r}: default {self.default!r} is not one of its options")


class FormError(ValueError):
    """Bad input for one field: ``field`` names it, ``message`` says in Korean what to fix."""

    def __init__(self, field: str, message: str):
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message


def shown(field: Field, raw: dict[str, str]) -> bool:
    """True when ``field`` is on screen for the form values ``raw`` (its ``when`` rule holds)."""
    if field.when is None:
        return True
    other, values = field.when
    return str(raw.get(other, "")) in values


def _number(text: str) -> float | None:
    try:
        x = float(text.replace(",", "").replace("_", ""))
    except ValueError:
        return None
    return x if math.isfinite(x) else None


def read(field: Field, text: object) -> object:
    """The value of one field from the text in its box; FormError with a Korean message when it is bad."""
    s = "" if text is None else str(text).strip()
    if s == "":
        if field.optional:
            return None
        if field.kind not in ("text",):
            raise FormError(field.name, "값을 적으세요.")
    if field.kind == "select":
        if s not in [v for v, _ in field.options]:
            raise FormError(field.name, f"목록에 있는 값을 고르세요. 받은 값: {s!r}")
        return s
    if field.kind in ("text", "json"):
        return s
    x = _number(s)
    if x is None:
        raise FormError(field.name, f"숫자로 적으세요(예: 1024, 2.5, 1e12). 받은 값: {s!r}")
    if field.kind == "int":
        if x < 1 or x != int(x):
            raise FormError(field.name, f"1 이상의 정수로 적으세요. 받은 값: {s!r}")
        return int(x)
    if x <= 0:
        raise FormError(field.name, f"0보다 큰 값을 적으세요. 받은 값: {s!r}")
    return x * field.scale


def parse(fields: list[Field], raw: dict[str, str]) -> tuple[dict[str, object], dict[str, str]]:
    """(values, errors): each shown field's value (SI units; None for an empty optional box), and for each
    bad field its Korean message. Fields that are hidden get no value and no check; a missing key reads
    as the field's default."""
    values: dict[str, object] = {}
    errors: dict[str, str] = {}
    full = {f.name: raw.get(f.name, f.default) for f in fields}
    for f in fields:
        if not shown(f, full):
            continue
        try:
            values[f.name] = read(f, full[f.name])
        except FormError as exc:
            errors[f.name] = exc.message
    return values, errors


def defaults(fields: list[Field]) -> dict[str, str]:
    """The form's starting values, as the browser would send them."""
    return {f.name: f.default for f in fields}


def _attr(s: object) -> str:
    return html.escape(str(s), quote=True)


def field_html(calc: str, f: Field) -> str:
    """One field: its label, box (or select), unit, hint and the empty slot for its error message."""
    fid = f"xc-{calc}-{f.name}"
    when = f' data-when="{_attr(f.when[0])}={_attr("|".join(f.when[1]))}"' if f.when else ""
    err = f"{fid}-err"
    common = f'id="{fid}" name="{_attr(f.name)}" aria-describedby="{err}"'
    if f.kind == "select":
        opts = "".join(f'<option value="{_attr(v)}"{" selected" if v == f.default else ""}>{html.escape(lab)}</option>'
                       for v, lab in f.options)
        box = f"<select {common}>{opts}</select>"
    elif f.kind == "json":
        box = f'<textarea {common} rows="6" spellcheck="false">{html.escape(f.default)}</textarea>'
    else:
        mode = {"int": "numeric", "number": "decimal"}.get(f.kind, "text")
        box = f'<input {common} type="text" inputmode="{mode}" value="{_attr(f.default)}" autocomplete="off">'
    unit = f'<span class="xpu-calc-unit">{html.escape(f.unit)}</span>' if f.unit else ""
    hint = f'<span class="xpu-calc-help">{html.escape(f.help)}</span>' if f.help else ""
    return (f'<div class="xpu-calc-field" data-field="{_attr(f.name)}"{when}>'
            f'<label for="{fid}">{html.escape(f.label)}</label>'
            f'<span class="xpu-calc-box">{box}{unit}</span>{hint}'
            f'<span class="xpu-calc-error" id="{err}" role="alert" hidden></span></div>')


def form_html(calc: str, title: str, fields: list[Field], intro: str = "") -> str:
    """The calculator as the page holds it before the runtime loads: a closed box with the form inside.

    Opening the box (``<details>``) loads the runtime; the status line says so while it loads.
    """
    intro_html = f'<p class="xpu-calc-intro">{html.escape(intro)}</p>' if intro else ""
    body = "".join(field_html(calc, f) for f in fields)
    return (f'<div class="xpu-calc" data-calc="{_attr(calc)}">'
            f'<details class="xpu-calc-details"><summary>{html.escape(title)}</summary>{intro_html}'
            f'<form class="xpu-calc-form" autocomplete="off" novalidate>{body}</form>'
            '<p class="xpu-calc-status" aria-live="polite">열면 이 사이트에 함께 올린 Python 런타임(Pyodide)을 불러와 '
            'xpucalc로 계산합니다.</p>'
            '<div class="xpu-calc-out" aria-live="polite"></div></details></div>')


__all__ = ["Field", "FormError", "defaults", "field_html", "form_html", "parse", "read", "shown"]
