"""Benchmark scripts: each prints a table of what it measures (README.md gives the figures).

A package so the scripts share ``benchmarks.common``; run one as ``python -m benchmarks.NAME``
or ``python benchmarks/NAME.py`` with the repository root on ``PYTHONPATH``.
"""
