"""Shared pytest options: ``--update-golden`` regenerates golden expectations."""

from __future__ import annotations


def pytest_addoption(parser):
    parser.addoption(
        "--update-golden",
        action="store_true",
        default=False,
        help="rewrite golden/*/*/expected.py (deleted when the case must not change) and findings.txt from the current codemods",
    )
