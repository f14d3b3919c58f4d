"""Who a request came from, with a proxy in front (docs/operating.md, "Behind a proxy").

A request's address is its socket's peer, unless that peer is a proxy the
operator listed in ``STALWART_TRUSTED_PROXIES`` (addresses or networks) and
the request carries a forwarding header (``Forwarded`` or
``X-Forwarded-For``): then the address is the nearest one in the forwarded
chain that is not itself a listed proxy, read from the right (the entries a
client wrote on the left are never believed past an untrusted hop).

A request counts as loopback (the MCP gateway's "no key means this machine
only") only when its address is loopback *and* nobody unlisted forwarded it:
a forwarding header from a peer that is not a listed proxy means a proxy on
this machine relayed someone else, so such a request is not loopback,
whatever its socket says.

Pure: no framework, so the HTTP routes and the ASGI gateway judge alike.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

Network = ipaddress.IPv4Network | ipaddress.IPv6Network
FORWARDING = ("forwarded", "x-forwarded-for")
_FOR = re.compile(r'(?:^|[;,\s])for\s*=\s*("[^"]*"|[^;,\s]*)', re.IGNORECASE)


@dataclass(frozen=True)
class Peer:
    address: str  # what a per-address limit counts (at most 64 characters)
    loopback: bool  # this machine, with no one in between that was not listed


def trusted_networks(entries: Iterable[str]) -> tuple[Network, ...]:
    """``STALWART_TRUSTED_PROXIES``' entries as networks; ``ValueError`` names a bad one."""
    networks = []
    for entry in entries:
        entry = entry.strip()
        if not entry:
            continue
        try:
            networks.append(ipaddress.ip_network(entry, strict=False))
        except ValueError as exc:
            raise ValueError(f"STALWART_TRUSTED_PROXIES: {entry!r} is not an address or a network") from exc
    return tuple(networks)


def _ip(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    text = text.strip().strip('"')
    if text.startswith("["):  # [v6]:port
        text = text[1:].partition("]")[0]
    elif text.count(":") == 1:  # v4:port
        text = text.partition(":")[0]
    try:
        address = ipaddress.ip_address(text)
    except ValueError:
        return None
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped
    return address


def _is_loopback(text: str) -> bool:
    if text == "localhost":
        return True
    address = _ip(text)
    return address is not None and address.is_loopback


def _within(text: str, networks: Sequence[Network]) -> bool:
    address = _ip(text)
    return address is not None and any(address in network for network in networks)


def _chain(headers: Mapping[str, str]) -> list[str]:
    """The forwarded addresses, nearest client first-to-last as the header lists them."""
    if headers.get("forwarded", "").strip():
        return [m.group(1).strip('"') for m in _FOR.finditer(headers["forwarded"])]
    return [part.strip() for part in headers.get("x-forwarded-for", "").split(",") if part.strip()]


def peer_of(socket_peer: str, headers: Mapping[str, str], trusted: Sequence[Network]) -> Peer:
    """Who sent a request whose socket's peer is ``socket_peer`` (``headers`` with lower-case names)."""
    socket_peer = socket_peer or "unknown"
    forwarded = any(headers.get(name, "").strip() for name in FORWARDING)
    if not forwarded:
        return Peer(socket_peer[:64], _is_loopback(socket_peer))
    if not _within(socket_peer, trusted):
        return Peer(socket_peer[:64], False)
    chain = _chain(headers)
    for hop in reversed(chain):
        if not _within(hop, trusted):
            return _hop(hop)
    if not chain:  # a listed proxy that forwarded no address: no one to count as this machine
        return Peer("unknown", False)
    return _hop(chain[0])  # every hop a listed proxy: the first one


def _hop(text: str) -> Peer:
    address = _ip(text)
    return Peer("unknown", False) if address is None else Peer(str(address), address.is_loopback)
