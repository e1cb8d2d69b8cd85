"""Shared pytest set-up: makes ``tests/builders.py`` importable as ``builders``.

Pytest puts this file's folder on ``sys.path`` (rootdir-relative, no packages), which
is all the scenario tests need to ``from builders import ...``.
"""
