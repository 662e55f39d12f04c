"""The security headers of every answer, from the Flask views and from the event loop's fast path alike.

A strict Content-Security-Policy and its companions (:data:`SECURITY_HEADERS`), and Strict-Transport-
Security when the site is served over https (``TIRAGE_HTTPS``). The pages have no inline script or
style (tests/browser/ fails on any console error, a violation of this policy included); ``data:``
images are the empty favicon.
"""

from __future__ import annotations

from flask import Flask, Response, current_app

CONTENT_SECURITY_POLICY = "; ".join((
    "default-src 'self'", "img-src 'self' data:", "style-src 'self'", "script-src 'self'", "connect-src 'self'",
    "frame-ancestors 'none'", "base-uri 'self'", "form-action 'self'", "object-src 'none'",
))  # fmt: skip
SECURITY_HEADERS: dict[str, str] = {
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
    "X-Frame-Options": "DENY",
    "Permissions-Policy": "camera=(), microphone=(), geolocation=(), payment=(), usb=()",
}
HSTS = "max-age=31536000"  # only when the site is served over https (TIRAGE_HTTPS)


def header_pairs(headers: dict[str, str], security: bool | None = None) -> list[tuple[bytes, bytes]]:
    """``headers`` as ASGI wants them; with ``security`` (whether the site is on https) also the security
    headers every answer of the Flask application carries, HSTS included on https."""
    if security is not None:
        headers = {**SECURITY_HEADERS, **({"Strict-Transport-Security": HSTS} if security else {}), **headers}
    return [(key.lower().encode("latin-1"), value.encode("latin-1")) for key, value in headers.items()]


def _security_headers(response: Response) -> Response:
    for name, value in SECURITY_HEADERS.items():
        response.headers.setdefault(name, value)
    if current_app.config.get("TIRAGE_HTTPS"):
        response.headers.setdefault("Strict-Transport-Security", HSTS)
    return response


def init_app(app: Flask) -> None:
    app.after_request(_security_headers)
