"""The pause page tells the whole story (docs/operating.md, "A pause's page"): who
proposed the call, each value's origin in words (the MCP client named), the
person's turn on a delegate pause, and what the run then did after an answer
(the reply; a mirrored graph's output), in English and Portuguese."""

from __future__ import annotations

import json
import re

import pytest
from django.test import Client
from django.utils import translation

from approvals.words import origin_words, proposer_words, reason_words
from doors.langgraph.values import output_words
from doors.mcp.calls import Caller, agent_of, call_start
from examples.shop import tools as shop
from tests.approvals.test_console import answer, make_pause, pause_page
from tests.support.staff import make_staff

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def shop_fresh(shop_dir):
    shop.reset()


def text_of(html: str) -> str:
    """What a person reads: the page's text, tags out, spaces folded."""
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html)).replace("&#x27;", "'").replace("&quot;", '"')


def mcp_pause(name: str = "shop-desk") -> str:
    caller = Caller(name=name, session="s1")
    held = call_start(caller, agent_of(None), "charge_card", {"order_id": "4411", "amount": 40})
    assert held.waits and held.pause is not None
    return held.pause.id


# --- the words --------------------------------------------------------------------------

def test_an_agent_origin_names_the_mcp_client_in_both_languages():
    assert origin_words("agent") == "the calling agent wrote it"
    assert origin_words("agent", client="shop-desk") == "the calling agent wrote it (MCP client shop-desk)"
    assert origin_words("agent", client="local") == "the calling agent wrote it (a local MCP client, no key)"
    assert origin_words("typed", client="shop-desk") == "you typed it"  # a client is named beside agent only
    with translation.override("pt-br"):
        assert origin_words("agent", client="shop-desk") == "o agente que chamou escreveu (cliente MCP shop-desk)"
        assert "agent file" not in origin_words("agent") and "arquivo" not in origin_words("agent")


def test_who_proposed_reads_in_words_for_each_door():
    assert proposer_words("mcp", "shop-desk") == "the MCP client shop-desk, by its key"
    assert proposer_words("mcp", "local") == "a local MCP client with no key (loopback or stdio)"
    assert proposer_words("langgraph", "shop-graph") == "the LangGraph graph shop-graph"
    assert proposer_words("langchain", "Shop") == "the model of the LangChain agent Shop (its tool call)"
    assert proposer_words("agui") == "a person's turn, through an AG-UI client"
    assert proposer_words("http") == "a person's turn, in the chat or through the HTTP API"
    assert proposer_words("") == ""  # a run stored before the door was recorded: the page falls back
    with translation.override("pt-br"):
        assert proposer_words("mcp", "shop-desk") == "o cliente MCP shop-desk, pela chave dele"
        assert proposer_words("http") == "a mensagem de uma pessoa, no chat ou pela API HTTP"


def test_the_delegate_reason_reads_in_words_not_its_code():
    assert reason_words("unread") == "no tool reads what the person wrote: approving hands it to the agent's model"
    with translation.override("pt-br"):
        assert reason_words("unread") != "unread" and "modelo" in reason_words("unread")


def test_a_policys_reason_reads_in_words_naming_the_policy():
    assert reason_words("policy:big-charges") == "the approval policy big-charges covers it"
    assert proposer_words("widget") == "a person's turn, in the chat widget"


def test_a_graphs_output_reads_as_its_last_message_or_its_state():
    assert output_words({"messages": [{"role": "human", "content": "hi"},
                                      {"role": "ai", "content": " Charged 40 to order 4411. "}]}) == \
        "Charged 40 to order 4411."
    assert output_words({"messages": [{"role": "ai", "content": [{"type": "text", "text": "Done."}]}]}) == "Done."
    assert output_words({"charged": True}) == '{"charged": true}'
    assert output_words(None) == "" and output_words({}) == ""
    assert len(output_words({"x": "y" * 5000})) == 2000


# --- the page ---------------------------------------------------------------------------

def test_an_mcp_calls_page_names_the_client_and_its_values_origin(shop_fresh):
    pause_id = mcp_pause()
    staff = make_staff()
    page = text_of(pause_page(staff, pause_id))
    assert "Proposed by the MCP client shop-desk, by its key" in page
    assert "order_id 4411 the calling agent wrote it (MCP client shop-desk)" in page
    assert "set by the agent file" not in page and "What the person wrote" not in page
    pt = make_staff("bia", language="pt-BR")
    page = text_of(pause_page(pt, pause_id))
    assert "Quem propôs o cliente MCP shop-desk, pela chave dele" in page
    assert "o agente que chamou escreveu (cliente MCP shop-desk)" in page


def test_a_person_turns_page_says_so_and_what_they_wrote(shop_fresh):
    pause = make_pause("t-story", "charge 40 to order 4411")
    page = text_of(pause_page(make_staff(), pause["id"]))
    assert "Proposed by a person's turn, in the chat or through the HTTP API" in page
    assert "What the person wrote charge 40 to order 4411" in page


def test_a_turn_through_the_python_api_says_so_and_what_was_written(shop_fresh, desk):
    reply = desk.say("t-desk-story", "charge 40 to order 4411")
    page = text_of(pause_page(make_staff(), reply.waiting[0]["id"]))
    assert "Proposed by the Python API" in page
    assert "What the person wrote charge 40 to order 4411" in page


def test_a_delegate_pause_shows_the_persons_turn_and_after_an_answer_what_the_run_did(shop_fresh):
    customer = Client()
    body = customer.post("/threads/t-unread/messages", data=json.dumps({"text": "my parcel came crushed"}),
                         content_type="application/json").json()
    pause_id = body["waiting"][0]["id"]
    assert body["waiting"][0]["kind"] == "delegate"
    staff = make_staff()
    html = pause_page(staff, pause_id)
    page = text_of(html)
    assert "What the person wrote my parcel came crushed" in page
    assert "no tool reads what the person wrote: approving hands it to the agent's model" in page
    assert "unread" not in page.replace("t-unread", "")
    assert "What the run then did" not in page
    done = text_of(answer(staff, pause_id, html, "decline").content.decode())
    assert "Answered: Decline." in done and "The reply: “" in done
    page = text_of(pause_page(staff, pause_id))
    assert "What the run then did" in page
    pt = text_of(pause_page(make_staff("bia", language="pt-BR"), pause_id))
    assert "O que a pessoa escreveu my parcel came crushed" in pt
    assert "Como foi dito à pessoa, em inglês (o idioma da conversa)." in pt


# --- the console's remaining English -------------------------------------------------------

def test_recent_actions_read_in_words_in_the_readers_language(shop_fresh):
    pause = make_pause("t-log", "charge 40 to order 4411")
    staff = make_staff()
    answer(staff, pause["id"], pause_page(staff, pause["id"]), "approve")
    index = text_of(staff.get("/admin/").content.decode())
    assert "Answered “Approve”: confirm, charge_card" in index and "confirm charge_card (open)" not in index
    pt = text_of(staff.get("/admin/", HTTP_ACCEPT_LANGUAGE="pt-BR").content.decode())
    assert "Respondida “Aprovar”: confirmação, charge_card" in pt and "Ações recentes" in pt


def test_a_duration_under_a_minute_is_never_zero_minutes():
    from datetime import timedelta

    from django.utils import timezone

    from approvals.words import since_words, until_words

    now = timezone.now()
    assert since_words(now - timedelta(seconds=20), now) == "less than a minute"
    assert since_words(now - timedelta(minutes=2), now) == "2\xa0minutes"
    assert until_words(now + timedelta(seconds=5), now) == "less than a minute"
    with translation.override("pt-br"):
        assert since_words(now - timedelta(seconds=20), now) == "menos de um minuto"
        assert since_words(now - timedelta(minutes=2), now) == "2\xa0minutos"


def test_the_mcp_client_form_labels_read_as_djangos_do(db):
    ops = make_staff("ops", operator=True)
    page = text_of(ops.get("/admin/doors_mcp/mcpclient/add/").content.decode())
    assert "Privileges:" in page and "Context values:" in page and "privileges:" not in page
    pt = text_of(make_staff("opa", operator=True, language="pt-BR").get("/admin/doors_mcp/mcpclient/add/")
                 .content.decode())
    assert "Privilégios:" in pt


def test_the_pairing_pages_wait_is_said_in_plural_forms():
    from approvals.views import DETAIL_TOO_MANY

    assert DETAIL_TOO_MANY % {"seconds": 1} == "Too many wrong codes. Try again in 1 second."
    assert DETAIL_TOO_MANY % {"seconds": 30} == "Too many wrong codes. Try again in 30 seconds."
    with translation.override("pt-br"):
        assert DETAIL_TOO_MANY % {"seconds": 1} == "Códigos errados demais. Tente de novo em 1 segundo."
        assert DETAIL_TOO_MANY % {"seconds": 30} == "Códigos errados demais. Tente de novo em 30 segundos."


def test_the_queue_row_names_the_mcp_client_that_proposed_the_call(shop_fresh):
    pause_id = mcp_pause("shop-desk")
    own = make_pause("t-row", "charge 40 to order 4411")
    staff = make_staff()
    page = text_of(staff.get("/admin/threads/interrupt/").content.decode())
    assert "Shop · MCP client shop-desk" in page and "Shop · a person's turn" in page
    pt = text_of(make_staff("bia", language="pt-BR").get("/admin/threads/interrupt/").content.decode())
    assert "Shop · cliente MCP shop-desk" in pt
    # Kept with the pause for the row, never shown to a door.
    from threads.engine import pause_read

    assert "proposer" not in json.dumps(pause_read(pause_id).to_json()) and own["id"]


def test_the_status_page_of_an_mcp_call_names_its_client_beside_its_values(shop_fresh):
    # The person the client's URL elicitation sends there reads the same words as the console.
    from approvals.status import status_url

    pause_id = mcp_pause()
    page = text_of(Client().get(status_url(pause_id)).content.decode())
    assert "the calling agent wrote it (MCP client shop-desk)" in page
    pt = text_of(Client().get(status_url(pause_id) + "?language=pt-BR").content.decode())
    assert "o agente que chamou escreveu (cliente MCP shop-desk)" in pt
    # Twin: a person's own turn names no client.
    pause = make_pause("t-status-words", "charge 40 to order 4411")
    page = text_of(Client().get(status_url(pause["id"])).content.decode())
    assert "MCP client" not in page and "you typed it" in page
