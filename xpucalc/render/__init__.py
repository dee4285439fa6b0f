"""Presentation that computes nothing: tables, the comparison table, plots, diagrams, Korean particles.

The top layer: it may import every layer below; nothing below imports it. ``plot`` and
``bench_plots`` need numpy and matplotlib and import them when called; ``dot`` needs Graphviz.
"""
