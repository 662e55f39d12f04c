"""What the LAN tests need from the machine and from a phone's camera: the machine's own addresses, read
from its interfaces (not the way the server finds them), and a real QR decoder (zxing-cpp) on images.
"""

from __future__ import annotations

import contextlib
import fcntl
import io
import ipaddress
import os
import socket
import struct

import pytest
import zxingcpp
from PIL import Image

SIOCGIFADDR = 0x8915  # Linux: the IPv4 address of the interface named in the request


def interface_ipv4_addresses() -> list[str]:
    """The IPv4 address of every interface of this machine that other machines can reach (not loopback
    or link-local), as the kernel reports them."""
    found = []
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        for _index, name in socket.if_nameindex():
            with contextlib.suppress(OSError):  # an interface without an IPv4 address
                answer = fcntl.ioctl(probe.fileno(), SIOCGIFADDR, struct.pack("256s", name.encode()[:15]))
                address = ipaddress.IPv4Address(answer[20:24])
                if not (address.is_loopback or address.is_link_local):
                    found.append(str(address))
    return found


def require_lan_address() -> list[str]:
    """The machine's reachable IPv4 addresses; without one, a LAN test cannot run: it fails under CI (which
    must never pass by skipping) and skips elsewhere, saying why."""
    addresses = interface_ipv4_addresses()
    if not addresses:
        reason = "this machine has no IPv4 address besides loopback (connect it to a network)"
        if os.environ.get("CI"):
            pytest.fail(f"the LAN tests cannot run in CI: {reason}")
        pytest.skip(f"the LAN tests need a network: {reason}")
    return addresses


def decode_qr_image(image: Image.Image) -> str:
    """The text of the one QR code in ``image``, read as a phone's camera app would (zxing-cpp)."""
    found = zxingcpp.read_barcodes(image.convert("L"), formats=zxingcpp.BarcodeFormat.QRCode)
    assert len(found) == 1, f"expected one QR code in the image, found {len(found)}"
    return str(found[0].text)


def decode_qr_png(png: bytes) -> str:
    return decode_qr_image(Image.open(io.BytesIO(png)))


# The terminal QR code (segno's compact form): each character is two modules, the upper and the lower one;
# a block is a light module (the terminal's text colour on a dark background), a space a dark one.
HALF_BLOCKS = {"█": (True, True), "▀": (True, False), "▄": (False, True), " ": (False, False)}


def decode_terminal_qr(lines: list[str], scale: int = 8) -> str:
    """Rasterise a QR code printed in a terminal with half blocks (light text on a dark screen, the usual
    terminal) and decode it: what a phone pointed at the terminal reads."""
    width = max(len(line) for line in lines)
    rows: list[list[bool]] = []
    for line in lines:
        upper, lower = [], []
        for char in line.ljust(width):
            top, bottom = HALF_BLOCKS[char]
            upper.append(top)
            lower.append(bottom)
        rows += [upper, lower]
    image = Image.new("L", (width * scale, len(rows) * scale), 0)  # the terminal's dark background
    pixels = image.load()
    assert pixels is not None
    for y, row in enumerate(rows):
        for x, light in enumerate(row):
            if light:
                for dy in range(scale):
                    for dx in range(scale):
                        pixels[x * scale + dx, y * scale + dy] = 255
    framed = Image.new("L", (image.width + 8 * scale, image.height + 8 * scale), 0)
    framed.paste(image, (4 * scale, 4 * scale))
    return decode_qr_image(framed)
