"""The machine's addresses on the local network, and the address phones are given to open.

Phones in a club room reach the laptop at its Wi-Fi address (``192.168.1.23``), never at ``127.0.0.1``:
``tirage serve --lan`` prints that address, and a join link made on a page opened at ``localhost`` uses it
(:func:`trainer.web.common.public_link`). Nothing here needs the internet: connecting a UDP socket sends no
packet, it only asks the system which address its route would send from.
"""

from __future__ import annotations

import contextlib
import ipaddress
import socket
import struct
import threading
import time
from urllib.parse import urlsplit

# Addresses no machine has (documentation ranges): "connecting" to them picks the default route's address.
ROUTE_PROBES = (("198.51.100.1", socket.AF_INET), ("2001:db8::1", socket.AF_INET6))
LOOPBACK_NAMES = frozenset({"localhost", "localhost.localdomain", "ip6-localhost", "ip6-loopback"})
CACHE_SECONDS = 30.0  # a laptop may move from the club's Wi-Fi to a phone's hotspot during the evening
_SIOCGIFADDR = 0x8915  # Linux: an interface's IPv4 address

_cache_lock = threading.Lock()
_cached: tuple[float, str | None] | None = None


class BadPublicUrl(ValueError):
    """``TIRAGE_PUBLIC_URL`` is not an address phones could open."""


def usable(address: str) -> bool:
    """An address another machine on the network could reach: not loopback, link-local, multicast or unset."""
    try:
        parsed = ipaddress.ip_address(address.split("%", 1)[0])
    except ValueError:
        return False
    return not (parsed.is_loopback or parsed.is_link_local or parsed.is_multicast or parsed.is_unspecified)


def _route_addresses() -> list[str]:
    found = []
    for target, family in ROUTE_PROBES:
        with contextlib.suppress(OSError), socket.socket(family, socket.SOCK_DGRAM) as probe:
            probe.connect((target, 9))
            found.append(str(probe.getsockname()[0]))
    return found


def _hostname_addresses() -> list[str]:
    with contextlib.suppress(OSError, UnicodeError):
        return [str(info[4][0]) for info in socket.getaddrinfo(socket.gethostname(), None, type=socket.SOCK_STREAM)]
    return []


def _interface_addresses() -> list[str]:
    """Each interface's IPv4 address where the system tells (Linux): finds a second network the default route
    does not use, such as a phone's hotspot beside a wired connection."""
    try:
        import fcntl

        names = [name for _index, name in socket.if_nameindex()]
    except (ImportError, OSError, AttributeError):
        return []
    found = []
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        for name in names:
            with contextlib.suppress(OSError):
                answer = fcntl.ioctl(probe.fileno(), _SIOCGIFADDR, struct.pack("256s", name.encode()[:15]))
                found.append(socket.inet_ntoa(answer[20:24]))
    return found


def lan_addresses(hostname: bool = True) -> list[str]:
    """This machine's addresses on its networks, the default route's first, IPv4 before IPv6 among equals.

    ``hostname`` also asks the resolver for the machine's own name (it may wait on a DNS server that is not
    there, so a page never asks it; the command line does, once).
    """
    candidates = _route_addresses()
    if hostname:
        candidates += _hostname_addresses()
    candidates += _interface_addresses()
    seen: list[str] = []
    for address in candidates:
        if usable(address) and address not in seen:
            seen.append(address)
    return seen


def preferred(addresses: list[str]) -> str | None:
    """The address to give phones: the first IPv4 one (every phone on Wi-Fi has IPv4), else the first."""
    return next((a for a in addresses if ":" not in a), addresses[0] if addresses else None)


def lan_address() -> str | None:
    """:func:`preferred` of :func:`lan_addresses` without the resolver, looked up at most every 30 s."""
    global _cached
    with _cache_lock:
        now = time.monotonic()
        if _cached is None or now - _cached[0] > CACHE_SECONDS:
            _cached = (now, preferred(lan_addresses(hostname=False)))
        return _cached[1]


def origin(scheme: str, host: str, port: int | None) -> str:
    """``http://192.168.1.23:5000``, ``http://[fd00::2]:5000``; the scheme's own port left out."""
    shown = f"[{host}]" if ":" in host else host
    default = {"http": 80, "https": 443}.get(scheme)
    return f"{scheme}://{shown}" if port is None or port == default else f"{scheme}://{shown}:{port}"


def is_loopback_host(host: str) -> bool:
    """``localhost``, ``127.0.0.1``, ``::1`` (a host name as a request names it, without its port)."""
    name = host.strip("[]").rstrip(".").lower()
    if name in LOOPBACK_NAMES or name.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def is_wildcard(host: str) -> bool:
    """Whether listening on ``host`` takes every IPv4 address of the machine: ``0.0.0.0``, or ``""`` (every IPv4
    and IPv6 address, as ``--lan`` listens). Not ``::``, where the server's socket takes IPv6 only."""
    return host in ("", "0.0.0.0")


def public_url(raw: str | None) -> str | None:
    """``TIRAGE_PUBLIC_URL`` checked and without its final slash; None when it is not set.

    It must be ``http://`` or ``https://`` with a host, and may have a path (a server behind a proxy at
    ``/tirage``), but no query, fragment, user or password: join links are made by adding a path to it.
    """
    text = (raw or "").strip()
    if not text:
        return None
    example = "like https://club.example.org or http://192.168.1.23:5000"
    try:
        parts = urlsplit(text)
        port = parts.port  # raises ValueError for a port that is not a number from 0 to 65535
    except ValueError:
        raise BadPublicUrl(f"TIRAGE_PUBLIC_URL={text!r} is not a web address: give one {example}") from None
    if parts.scheme not in ("http", "https"):
        raise BadPublicUrl(f"TIRAGE_PUBLIC_URL={text!r} must start with http:// or https://, {example}")
    if not parts.hostname:
        raise BadPublicUrl(f"TIRAGE_PUBLIC_URL={text!r} has no host name: give one {example}")
    if parts.query or parts.fragment or "?" in text or "#" in text:
        raise BadPublicUrl(f"TIRAGE_PUBLIC_URL={text!r} must not have a query (?…) or a fragment (#…): {example}")
    if parts.username is not None or parts.password is not None:
        raise BadPublicUrl(f"TIRAGE_PUBLIC_URL={text!r} must not hold a user name or password: {example}")
    if any(ch.isspace() for ch in text):
        raise BadPublicUrl(f"TIRAGE_PUBLIC_URL={text!r} must not hold spaces: {example}")
    host = parts.hostname
    return origin(parts.scheme, host, port) + parts.path.rstrip("/")
