"""Evidence labels for captions, titles and table headers: the weakest label of the figures they show.

A caption carries its label as a glued value (a ``glue:text`` role naming it), never as typed text.
:func:`glue_label` glues two values under one name: ``name`` is the label the caption shows
(``xpucalc.evidence.weakest`` of the labels) and ``name + "_of"`` the labels of the figures actually drawn,
so that ``tests/book/test_labels.py`` can check every glued caption label against what was plotted.
A figure with no caption under it (a lab's) carries the label in its own title: :func:`titled`.
"""
from __future__ import annotations

from collections.abc import Iterable

from .. import evidence

#: The suffix of the glued list of drawn figures' labels beside each glued caption label.
OF = "_of"


def caption_label(labels: Iterable[str]) -> str:
    """The label a caption over figures with ``labels`` carries: the weakest of them."""
    return evidence.weakest(labels)


def titled(title: str, labels: Iterable[str]) -> str:
    """``title`` followed by the caption label of figures with ``labels`` in parentheses: a figure's own title
    where no caption stands under it (the labs). ``titled("대역폭", ["실측", "분석 계산"])`` is
    ``"대역폭 (분석 계산)"``."""
    if not title.strip():
        raise ValueError("title is empty; give the figure a title to carry its evidence label")
    return f"{title} ({caption_label(labels)})"


def glue_label(name: str, labels: Iterable[str]) -> str:
    """Glue the caption label of figures with ``labels`` as ``name`` and the labels as ``name + "_of"``; return it.

    ``labels`` are the evidence labels of the figures the caption or title shows (a catalog figure's
    ``.evidence``, a run's ``.evidence``, ``evidence.COMPUTED`` for a value the page computes). Needs myst-nb,
    as the chapters do; the label itself is :func:`caption_label`.
    """
    from myst_nb import glue

    drawn = [evidence.check(label) for label in labels]
    label = caption_label(drawn)
    glue(name + OF, drawn, display=False)
    glue(name, label, display=False)
    return label
