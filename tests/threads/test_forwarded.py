"""Who a request came from with a proxy in front (threads.forwarded; docs/operating.md, "Behind a proxy")."""

from __future__ import annotations

import pytest

from threads.forwarded import Peer, peer_of, trusted_networks

LISTED = trusted_networks(["127.0.0.1", "10.0.0.0/8"])


def test_a_socket_with_no_forwarding_header_is_its_own_address():
    assert peer_of("127.0.0.1", {}, ()) == Peer("127.0.0.1", True)
    assert peer_of("::1", {}, ()) == Peer("::1", True)
    assert peer_of("::ffff:127.0.0.1", {}, ()).loopback
    assert peer_of("198.51.100.7", {}, LISTED) == Peer("198.51.100.7", False)


@pytest.mark.parametrize("headers", [{"x-forwarded-for": "203.0.113.5"}, {"forwarded": "for=203.0.113.5"},
                                     {"x-forwarded-for": "127.0.0.1"}])
def test_a_forwarded_request_from_an_unlisted_proxy_on_this_machine_is_not_loopback(headers):
    # A proxy on this machine relays someone else: its socket says loopback, the header says otherwise.
    assert peer_of("127.0.0.1", headers, ()) == Peer("127.0.0.1", False)


def test_a_listed_proxy_is_believed_and_the_nearest_unlisted_hop_decides():
    assert peer_of("127.0.0.1", {"x-forwarded-for": "203.0.113.5"}, LISTED) == Peer("203.0.113.5", False)
    assert peer_of("127.0.0.1", {"x-forwarded-for": "127.0.0.1"}, LISTED) == Peer("127.0.0.1", True)
    # What the client wrote on the left is never believed past the first hop that is not listed.
    spoofed = {"x-forwarded-for": "127.0.0.1, 198.51.100.9, 10.1.2.3"}
    assert peer_of("127.0.0.1", spoofed, LISTED) == Peer("198.51.100.9", False)
    assert peer_of("10.0.0.2", {"forwarded": 'for="[2001:db8::1]:4711";proto=https, for=10.9.9.9'},
                   LISTED) == Peer("2001:db8::1", False)


def test_a_forwarded_address_that_is_not_one_counts_as_unknown_never_as_this_machine():
    assert peer_of("127.0.0.1", {"forwarded": "for=_hidden"}, LISTED) == Peer("unknown", False)
    assert peer_of("127.0.0.1", {"forwarded": "proto=https"}, LISTED) == Peer("unknown", False)
    assert peer_of("127.0.0.1", {"x-forwarded-for": "localhost" + "x" * 100}, LISTED).address == "unknown"


def test_a_bad_entry_in_the_list_is_named():
    with pytest.raises(ValueError, match="'not-an-ip'"):
        trusted_networks(["127.0.0.1", "not-an-ip"])
