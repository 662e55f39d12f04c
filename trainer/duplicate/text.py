"""Marking the English text the pure packages hand to the pages (setting labels, mode titles)."""

from __future__ import annotations


def N_(text: str) -> str:
    """Mark ``text`` for translation (``pybabel extract`` finds it); the pages translate it when they show it."""
    return text
