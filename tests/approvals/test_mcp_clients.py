"""MCP clients' keys in the console (docs/mcp.md, "Keys: who may call"): an operator makes one
(shown once), revokes it; an approver may do neither; a key is checked in
constant time, revoked or wrong ones refused."""

from __future__ import annotations

import re

import pytest

from doors.mcp.clients import mcp_client_create, mcp_client_of, mcp_client_revoke
from doors.mcp.models import McpClient
from tests.support.staff import csrf, make_staff

pytestmark = pytest.mark.django_db

ADD = "/admin/doors_mcp/mcpclient/add/"


def test_an_operator_makes_a_key_shown_once_and_kept_only_as_its_hash():
    ops = make_staff("ops", operator=True)
    ops.get(ADD)
    made = ops.post(ADD, {"name": "shopfront", "privileges_text": "refunds, refunds", "context_text":
                          '{"customer": "c-208"}', "csrfmiddlewaretoken": csrf(ops)}, follow=True)
    assert made.status_code == 200
    shown = re.search(r"shown this once: (stw_[A-Za-z0-9_-]+)", made.content.decode())
    assert shown is not None
    client = McpClient.objects.get(name="shopfront")
    assert client.privileges == ["refunds"] and client.context == {"customer": "c-208"}
    assert client.created_by == "ops" and shown.group(1) not in str(McpClient.objects.values().get())
    assert mcp_client_of(shown.group(1)) == client
    page = ops.get(f"/admin/doors_mcp/mcpclient/{client.pk}/change/").content.decode()
    assert shown.group(1) not in page and client.key_prefix in page  # never shown again


def test_bad_context_is_said_and_nothing_is_made():
    ops = make_staff("ops", operator=True)
    ops.get(ADD)
    refused = ops.post(ADD, {"name": "shopfront", "context_text": "[1, 2]", "csrfmiddlewaretoken": csrf(ops)})
    assert refused.status_code == 200 and "Context values are a JSON object" in refused.content.decode()
    assert not McpClient.objects.exists()


def test_a_revoked_key_is_refused_and_an_approver_may_not_make_or_revoke_keys():
    client, key = mcp_client_create(name="gone")
    ops = make_staff("ops", operator=True)
    ops.get("/admin/doors_mcp/mcpclient/")
    done = ops.post("/admin/doors_mcp/mcpclient/", {"action": "revoke", "_selected_action": [client.pk],
                                                    "csrfmiddlewaretoken": csrf(ops)}, follow=True)
    assert "Revoked 1 key" in done.content.decode()
    assert mcp_client_of(key) is None
    approver = make_staff("ana")
    assert approver.get("/admin/doors_mcp/mcpclient/").status_code == 403
    assert approver.get(ADD).status_code == 403


def test_a_key_is_found_by_its_whole_value_only():
    client, key = mcp_client_create(name="front")
    assert mcp_client_of(key) == client
    assert mcp_client_of(key[:-1] + ("a" if key[-1] != "a" else "b")) is None  # same prefix, other key
    assert mcp_client_of("stw_" + "x" * 43) is None and mcp_client_of("not-a-key") is None
    mcp_client_revoke(client=client)
    assert mcp_client_of(key) is None
