"""CSRF protection of the pages' forms (Flask-WTF); the JSON API exempts itself (it uses bearer tokens)."""

from __future__ import annotations

from flask_wtf.csrf import CSRFProtect

csrf = CSRFProtect()
