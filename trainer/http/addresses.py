"""Whom a per-address limit counts: an IPv4 address, or an IPv6 address's /64 network.

One IPv6 host is usually given a whole /64 and may take any address in it; counted by full address, it would
have 2^64 fresh budgets. An IPv4 address stays itself (a club behind one router is one address already).
"""

from __future__ import annotations

import ipaddress

IPV6_PREFIX = 64


def client_network(address: str | None) -> str:
    """``"192.0.2.7"`` for itself, ``"2001:db8:1:2::/64"`` for any address in that network, "unknown" for none."""
    if not address:
        return "unknown"
    try:
        parsed = ipaddress.ip_address(address)
    except ValueError:
        return address  # a unix socket's or a test client's name: itself
    if isinstance(parsed, ipaddress.IPv6Address):
        if parsed.ipv4_mapped is not None:  # ::ffff:192.0.2.7 is 192.0.2.7
            return str(parsed.ipv4_mapped)
        return str(ipaddress.IPv6Network(f"{parsed}/{IPV6_PREFIX}", strict=False))
    return str(parsed)


def trusted_proxies(value: str | None) -> list[str]:
    """The proxies whose ``X-Forwarded-For`` names the client (``TIRAGE_TRUSTED_PROXIES``): addresses or networks,
    separated by commas or spaces; none when unset. Any other client's header is ignored, loopback ones included:
    a client on the same machine (or a tool spreading its connections over 127.0.0.0/8) is counted by its own
    address. Raises ValueError, naming the entry, for one that is neither."""
    proxies = []
    for entry in (value or "").replace(",", " ").split():
        try:
            proxies.append(str(ipaddress.ip_network(entry, strict=False)))
        except ValueError:
            raise ValueError(
                f"TIRAGE_TRUSTED_PROXIES: {entry!r} is not an address or a network (such as 127.0.0.1 or 10.0.0.0/24)"
            ) from None
    return proxies
