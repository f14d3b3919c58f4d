"""An agent's words in each language: purpose, greeting and tool descriptions in the agent
file and the catalogue, the pt-BR lint of `stalwart verify`, and replies built from
localized field names and values (docs/agent-file.md, "Words in each language")."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from catalogue.agentfile import AgentFileError, load_agent_file
from catalogue.commands import verify_main
from catalogue.lints import lint
from catalogue.tools import Tool, tools_from_catalogue
from catalogue.vocabulary import VocabularyError, vocabulary_from_data
from catalogue.wording import result_words, said_text, tool_phrase
from tests.catalogue.conftest import SHOP

PT_AGENT = """agents:
  - name: Loja
    language: pt-BR
    purpose: {{en: I look up orders., pt-BR: Eu consulto pedidos.}}
    greeting: {{pt-BR: Olá! Sou a Loja.}}
    tools:
      get_order:
        python: examples.shop.tools:get_order
        read: true
        description: {description}
"""


def _file(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "agent.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def _verify(path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = verify_main([str(path)])
    captured = capsys.readouterr()
    assert "Traceback" not in captured.out + captured.err
    return code, captured.out + captured.err


def test_purpose_greeting_and_description_per_language(tmp_path: Path) -> None:
    agent = load_agent_file(_file(tmp_path, PT_AGENT.format(
        description="{pt-BR: Mostra um pedido.}"))).agents[0]
    assert agent.purpose == "I look up orders."  # what the model and the doors read: the English
    assert agent.said("purpose", "pt-BR") == "Eu consulto pedidos."
    assert agent.said("greeting", "pt-BR") == "Olá! Sou a Loja."
    # Only pt-BR given: an English reader gets it too, as a `confirm` in one language does.
    assert agent.said("greeting", "en") == "Olá! Sou a Loja."
    tool = agent.tool("get_order")
    assert tool is not None
    assert tool.description_in("pt-BR") == "Mostra um pedido."
    # No English given: the docstring's stays the English.
    assert tool.description_in("en") == tool.description == "Show an order: its customer, card, total and status."


@pytest.mark.parametrize(("purpose", "reason"), [
    ("{fr: Bonjour}", "'fr' is not a language (expected en or pt-BR)"),
    ("{pt-BR: ''}", "the pt-BR words must be non-empty text"),
    ("[a, b]", "must be text, or text per language like {en: ..., pt-BR: ...}"),
])
def test_a_purpose_in_an_unknown_language_or_empty_is_refused_with_its_place(
        tmp_path: Path, purpose: str, reason: str) -> None:
    path = _file(tmp_path, f"agents:\n  - name: A\n    purpose: {purpose}\n    tools:\n"
                           "      get_order: {python: 'examples.shop.tools:get_order', read: true}\n")
    with pytest.raises(AgentFileError) as err:
        load_agent_file(path)
    assert err.value.place == "agents[0].purpose"
    assert err.value.reason == reason


def test_a_description_in_an_unknown_language_is_refused(tmp_path: Path) -> None:
    with pytest.raises(AgentFileError) as err:
        load_agent_file(_file(tmp_path, PT_AGENT.format(description="{es: Muestra un pedido.}")))
    assert err.value.place == "agents[0].tools.get_order.description"
    assert "'es' is not a language" in err.value.reason


def test_verify_warns_of_a_tool_with_no_pt_br_words_on_a_pt_br_agent(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out = _verify(_file(tmp_path, PT_AGENT.format(description="{en: Show an order.}")), capsys)
    assert code == 0  # a warning, not an error
    assert ("warning tool_without_pt_br get_order: the agent speaks pt-BR and the tool has no pt-BR "
            "description, so a Portuguese chat shows it in English") in out.splitlines()


def test_verify_is_quiet_when_the_tool_has_its_pt_br_words(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out = _verify(_file(tmp_path, PT_AGENT.format(description="{pt-BR: Mostra um pedido.}")), capsys)
    assert code == 0
    assert "tool_without_pt_br" not in out


def test_verify_does_not_ask_an_english_agent_for_pt_br(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = PT_AGENT.format(description="Show an order.").replace("language: pt-BR", "language: en")
    code, out = _verify(_file(tmp_path, text), capsys)
    assert code == 0
    assert "tool_without_pt_br" not in out


@pytest.mark.parametrize("agent_file", ["agent.yaml", "agent-openapi.yaml", "agent-mcp.yaml"])
def test_the_example_shop_has_pt_br_words_for_every_tool(agent_file: str) -> None:
    agent = load_agent_file(SHOP / agent_file).agents[0]
    # The shop is an English agent; read as a pt-BR one, nothing lacks its Portuguese.
    assert [f.tool for f in lint(list(agent.tools), "pt-BR") if f.code == "tool_without_pt_br"] == []
    assert agent.said("purpose", "pt-BR").startswith("Eu consulto os seus pedidos")
    assert agent.said("greeting", "pt-BR").startswith("Olá! Eu sou Shop.")
    for tool in agent.tools:
        assert tool.description_in("pt-BR") != tool.description
        assert tool.description  # the English kept (the docstring's, or the catalogue's)
    charge = agent.tool("charge_card")
    assert charge is not None and charge.kind == "write" and charge.binding  # a pt-BR entry changes only the words


def test_without_its_pt_br_words_the_shop_is_warned_of(tmp_path: Path) -> None:
    agent = load_agent_file(SHOP / "agent.yaml").agents[0]
    bare = [Tool(t.name, kind=t.kind, description=t.description) for t in agent.tools]
    assert {f.tool for f in lint(bare, "pt-BR") if f.code == "tool_without_pt_br"} == {t.name for t in agent.tools}
    assert [f for f in lint(bare, "en") if f.code == "tool_without_pt_br"] == []


def test_a_catalogue_carries_a_description_per_language_and_writes_it_back(tmp_path: Path) -> None:
    (tmp_path / "c.json").write_text(json.dumps({"version": 1, "tools": [
        {"name": "get_order", "kind": "read",
         "description": {"en": "Show an order.", "pt-BR": "Mostra um pedido."}},
    ]}), encoding="utf-8")
    agent = load_agent_file(_file(tmp_path, "agents:\n  - name: A\n    catalogue: c.json\n")).agents[0]
    tool = agent.tools[0]
    assert (tool.description, tool.description_in("pt-BR")) == ("Show an order.", "Mostra um pedido.")
    assert tool.to_json()["description"] == {"en": "Show an order.", "pt-BR": "Mostra um pedido."}
    assert "descriptions" not in tool.to_json()
    again = tools_from_catalogue({"tools": [tool.to_json()]})[0]
    assert again.description_in("pt-BR") == "Mostra um pedido."
    assert Tool("a", description="Plain.").to_json()["description"] == "Plain."


def test_a_catalogue_description_in_an_unknown_language_is_refused(tmp_path: Path) -> None:
    (tmp_path / "c.json").write_text(json.dumps({"version": 1, "tools": [
        {"name": "get_order", "kind": "read", "description": {"fr": "Montre."}}]}), encoding="utf-8")
    with pytest.raises(AgentFileError) as err:
        load_agent_file(_file(tmp_path, "agents:\n  - name: A\n    catalogue: c.json\n"))
    assert "description" in err.value.reason


def test_a_plural_tool_name_reads_as_a_portuguese_plural() -> None:
    vocabulary = load_agent_file(SHOP / "agent.yaml").agents[0].vocabulary
    assert tool_phrase("search_orders", "pt-BR", vocabulary) == "procurar pedidos"
    assert tool_phrase("search_orders", "en", vocabulary) == "search orders"


def test_a_reply_reads_field_names_values_and_numbers_in_portuguese() -> None:
    agent = load_agent_file(SHOP / "agent.yaml").agents[0]
    order = {"order_id": "5001", "customer": "c-311", "card": "mc-4420", "total": "99.90", "status": "unpaid"}
    assert result_words(order, "pt-BR", agent.tool("get_order"), agent.vocabulary) == (
        "pedido: 5001, cliente: c-311, cartão: mc-4420, total: 99,90, situação: não pago")
    # English is as before: the names read as words, the values as the tool said them.
    assert result_words(order, "en", agent.tool("get_order"), agent.vocabulary) == (
        "order id: 5001, customer: c-311, card: mc-4420, total: 99.90, status: unpaid")
    charge = {"charge_id": "ch-4411", "order_id": "4411", "amount": 40.5}
    assert result_words(charge, "pt-BR", agent.tool("charge_card"), agent.vocabulary) == (
        "cobrança: ch-4411, pedido: 4411, valor: 40,5")
    sent = {"order_id": "4411", "email": "ana@example.com", "sent": True}
    assert result_words(sent, "pt-BR", agent.tool("send_receipt"), agent.vocabulary) == (
        "pedido: 4411, e-mail: ana@example.com, enviado: sim")
    assert result_words({"orders": []}, "pt-BR", None, agent.vocabulary) == "pedidos: nenhum"


def test_an_error_reads_in_portuguese_from_the_vocabulary_results() -> None:
    vocabulary = load_agent_file(SHOP / "agent.yaml").agents[0].vocabulary
    assert said_text("order 4412 is already paid", "pt-BR", vocabulary) == "o pedido 4412 já está pago"
    assert said_text("there is no order 9999", "pt-BR", vocabulary) == "não existe o pedido 9999"
    assert said_text("order 4412 is already paid", "en", vocabulary) == "order 4412 is already paid"
    # Text the table does not know is left as the tool said it.
    assert said_text("the card was declined", "pt-BR", vocabulary) == "the card was declined"


@pytest.mark.parametrize(("data", "place"), [
    ({"results": {"fr": {"paid": "payé"}}}, "results.fr"),
    ({"results": {"pt-BR": {"paid": ""}}}, "results.pt-BR.paid"),
    ({"results": ["paid"]}, "results"),
])
def test_a_vocabulary_results_mistake_is_refused_with_its_place(data: dict[str, object], place: str) -> None:
    with pytest.raises(VocabularyError) as err:
        vocabulary_from_data(data)
    assert err.value.place == place


def test_a_tools_labels_name_its_result_fields_and_the_results_table_comes_first() -> None:
    tool = Tool("get_parcel", kind="read", labels={"parcel_id": {"en": "Parcel", "pt-BR": "Encomenda"}})
    vocabulary = vocabulary_from_data({"results": {"pt-BR": {"weight": "peso", "lost": "extraviada",
                                                             "{n} parcels are late": "{n} encomendas atrasadas"}}})
    assert result_words({"parcel_id": "p-1", "weight": 2.5, "state": "lost"}, "pt-BR", tool, vocabulary) == (
        "encomenda: p-1, peso: 2,5, state: extraviada")
    assert result_words({"parcel_id": "p-1"}, "en", tool, vocabulary) == "parcel: p-1"
    assert said_text("3 parcels are late", "pt-BR", vocabulary) == "3 encomendas atrasadas"


@pytest.mark.parametrize(("value", "shown"), [
    ("2026-12-03", "03/12/2026"), ("2026-12-03T10:05:00Z", "03/12/2026 10:05 UTC"),
    ("2026-12-03 10:05", "03/12/2026 10:05"), ("2026-12-03T10:05:00+00:00", "03/12/2026 10:05 UTC"),
    ("2026-12-03T10:05:00-03:00", "2026-12-03T10:05:00-03:00"),  # another offset: as the tool said it
    ("4411", "4411"), ("99.90", "99,90"), ("v1.2.3", "v1.2.3"),
])
def test_dates_and_numbers_in_a_portuguese_reply(value: str, shown: str) -> None:
    assert result_words({"x": value}, "pt-BR") == f"x: {shown}"
    assert result_words({"x": value}, "en") == f"x: {value}"  # English: as the tool said it
