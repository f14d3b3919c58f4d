from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from catalogue.commands import verify_main
from catalogue.lints import (
    COMPENSATION_NOT_RETRY_SAFE,
    GRAMMAR_WORDS,
    IDENTIFIER_UNCLEAR,
    Finding,
    format_finding,
    lint,
)
from tests.catalogue.conftest import SHOP
from tests.catalogue.helpers import AgentFileError, load_agent_file, make_tool

RETRY_SAFE = {"argument": "idempotency_key"}
RESULT = {"type": "object"}


def codes(findings: list[Finding]) -> set[tuple[str, str, str]]:
    return {(f.level, f.code, f.tool) for f in findings}


def verify(path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = verify_main([str(path)], loader=load_agent_file, loader_errors=(AgentFileError,))
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err + captured.out
    return code, captured.out + captured.err


def test_a_well_declared_write_has_no_finding() -> None:
    tools = [make_tool("charge_card", compensation={"tool": "refund_card"}, idempotency=RETRY_SAFE,
                       result_schema=RESULT),
             make_tool("refund_card", irreversible=True, idempotency=RETRY_SAFE, result_schema=RESULT)]
    assert lint(tools) == []


@pytest.mark.parametrize(("overrides", "code"), [
    ({"idempotency": RETRY_SAFE, "result_schema": RESULT}, "write_without_compensation"),
    ({"irreversible": True, "result_schema": RESULT}, "write_not_retry_safe"),
    ({"irreversible": True, "idempotency": RETRY_SAFE}, "write_without_result_schema"),
])
def test_each_write_warning(overrides: dict[str, Any], code: str) -> None:
    assert codes(lint([make_tool("archive_order", **overrides)])) == {("warning", code, "archive_order")}


def test_a_read_has_no_write_warnings() -> None:
    assert lint([make_tool("get_order", kind="read")]) == []


def test_an_undo_that_is_not_retry_safe() -> None:
    tools = [make_tool("charge_card", compensation={"tool": "refund_card"}, idempotency=RETRY_SAFE,
                       result_schema=RESULT),
             make_tool("refund_card", irreversible=True, result_schema=RESULT)]
    found = [f for f in lint(tools) if f.code == "compensation_not_retry_safe"]
    assert format_finding(found[0]) == (
        "warning compensation_not_retry_safe charge_card: " + COMPENSATION_NOT_RETRY_SAFE.format(undo="refund_card"))


@pytest.mark.parametrize(("names", "expected"), [
    (["get_order", "getOrder"], {("error", "tools_indistinguishable", "getOrder")}),
    (["and_then"], {("error", "name_is_grammar", "and_then")}),
    (["it"], {("error", "name_is_grammar", "it")}),
    (["depois_do"], {("error", "name_is_grammar", "depois_do")}),
])
def test_name_errors(names: list[str], expected: set[tuple[str, str, str]]) -> None:
    assert codes(lint([make_tool(n, kind="read") for n in names])) == expected


def _read(name: str, /, required: list[str] | None = None, kind: str = "read",
          **props: dict[str, Any]) -> Any:
    return make_tool(name, kind=kind, input_schema={
        "type": "object", "properties": props,
        "required": list(props) if required is None else required})


S: dict[str, Any] = {"type": "string"}


@pytest.mark.parametrize(("tools", "warned"), [
    # A read of one prescription by a number the schema never ties to prescriptions.
    ([_read("get_prescription", rx_number=S)], {"get_prescription"}),
    # Two identifiers and nothing to tell them apart.
    ([_read("get_transfer", from_code=S, to_code=S)], {"get_transfer"}),
    # The tool says "code" alone; the catalogue identifies prescriptions by rx_number.
    ([_read("get_prescription", rx_number={"type": "string",
                                           "description": "The prescription number."}),
      _read("refill_prescription", kind="write", code=S)], {"refill_prescription"}),
    # Told: named after the thing, described as its identifier, an identifier name.
    ([_read("get_order", order_id=S)], set()),
    ([_read("get_prescription", rx_number={"type": "string",
                                           "description": "The prescription number."})], set()),
    ([_read("get_medicine", sku=S)], set()),
    # Nothing to tell: many things, no required argument, or arguments of other things.
    ([_read("search_medicines", name=S)], set()),
    ([_read("list_work_orders", required=[], status=S)], set()),
    ([_read("get_order", order_id=S),
      make_tool("charge_card", irreversible=True, idempotency=RETRY_SAFE, result_schema=RESULT,
                input_schema={"type": "object", "required": ["order_id", "amount"],
                              "properties": {"order_id": S, "amount": {"type": "number"}}})],
     set()),
])
def test_identifier_unclear(tools: list[Any], warned: set[str]) -> None:
    found = [f for f in lint(tools) if f.code == "identifier_unclear"]
    assert {f.tool for f in found} == warned
    assert all(f.level == "warning" for f in found)


def test_identifier_unclear_message() -> None:
    (found,) = lint([_read("get_prescription", rx_number=S)])
    assert format_finding(found) == "warning identifier_unclear get_prescription: " + \
        IDENTIFIER_UNCLEAR.format(thing="prescription", why=(
            "'rx_number' is neither named after it nor described as its identifier"))


def test_an_undo_naming_no_tool() -> None:
    tool = make_tool("charge_card", compensation={"tool": "refund_kard"}, idempotency=RETRY_SAFE,
                     result_schema=RESULT)
    assert codes(lint([tool])) == {("error", "compensation_unknown", "charge_card")}


def test_grammar_words_cover_both_languages() -> None:
    assert {"and", "then", "it", "its", "the", "a", "to", "of", "e", "depois", "o", "no", "do"} <= GRAMMAR_WORDS


@pytest.mark.parametrize("agent_file", ["agent.yaml", "agent-openapi.yaml", "agent-mcp.yaml"])
def test_verify_on_the_shop_exits_0_and_warns_about_archive_order(
        agent_file: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, out = verify(SHOP / agent_file, capsys)
    assert code == 0
    lines = out.splitlines()
    assert any(line.startswith("warning write_without_compensation archive_order: ") for line in lines)
    assert all(line.startswith("warning ") for line in lines)


def _agent(tmp_path: Path, tools: str) -> Path:
    path = tmp_path / "agent.yaml"
    path.write_text(f"agents:\n  - name: A\n    tools:\n{tools}")
    return path


def test_two_tools_that_read_alike_exit_1_naming_both(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _agent(tmp_path, "      get_order: {read: true}\n      GetOrder: {read: true}\n")
    code, out = verify(path, capsys)
    assert code == 1
    assert "error tools_indistinguishable GetOrder:" in out and "'get_order'" in out


def test_a_name_of_grammar_words_exits_1(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out = verify(_agent(tmp_path, "      and_then: {read: true}\n"), capsys)
    assert code == 1 and "error name_is_grammar and_then:" in out


def test_duplicate_names_in_a_catalogue_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "c.json").write_text('{"version": 1, "tools": [{"name": "a", "kind": "read"},'
                                     ' {"name": "a", "kind": "write"}]}')
    path = tmp_path / "agent.yaml"
    path.write_text("agents:\n  - name: A\n    catalogue: c.json\n")
    code, out = verify(path, capsys)
    assert code == 2 and "the tool name 'a' appears twice" in out and "$.tools[1].name" in out


def test_an_invalid_agent_file_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "agent.yaml"
    path.write_text("agents: [\n")
    code, out = verify(path, capsys)
    assert code == 2 and "stalwart: error:" in out


# The same through the lead's agent-file loader (catalogue.agentfile), the one `stalwart verify` uses.

def test_verify_through_the_agent_file_loader(capsys: pytest.CaptureFixture[str]) -> None:
    assert verify_main([str(SHOP / "agent-openapi.yaml")]) == 0
    assert "warning write_without_compensation archive_order: " in capsys.readouterr().out


def test_verify_through_the_agent_file_loader_refuses_duplicates(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "c.json").write_text('{"version": 1, "tools": [{"name": "a", "kind": "read"},'
                                     ' {"name": "a", "kind": "write"}]}')
    path = tmp_path / "agent.yaml"
    path.write_text("agents:\n  - name: A\n    catalogue: c.json\n")
    assert verify_main([str(path)]) == 2
    captured = capsys.readouterr()
    assert "the tool name 'a' appears twice" in captured.err and "Traceback" not in captured.err


def test_verify_given_a_catalogue_says_it_takes_an_agent_file_and_the_agent_file_it_shows_lints_it(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    def real_verify(path: Path) -> tuple[int, str]:  # through catalogue.agentfile, as `stalwart verify` is
        code = verify_main([str(path)])
        captured = capsys.readouterr()
        assert "Traceback" not in captured.err + captured.out
        return code, captured.out + captured.err

    catalogue = tmp_path / "catalogue.json"
    catalogue.write_text((SHOP / "catalogue-openapi.json").read_text(encoding="utf-8"), encoding="utf-8")
    code, out = real_verify(catalogue)
    assert code == 2 and "unknown key" not in out
    assert f"{catalogue} is a catalogue, and stalwart verify takes an agent file (AGENT.yaml)." in out
    # Do as it says: the agent file it shows, beside the catalogue, lints the catalogue.
    shown = [line[2:] for line in out.splitlines() if line.startswith("  ")]
    assert shown[-1] == "    catalogue: catalogue.json"
    agent_file = tmp_path / "verify.yaml"
    agent_file.write_text("\n".join(shown) + "\n", encoding="utf-8")
    code, out = real_verify(agent_file)
    assert code == 0 and "warning write_without_compensation archive_order: " in out


def test_a_finding_keeps_its_message_id_and_values_for_the_console_to_translate():
    from catalogue.lints import COMPENSATION_NOT_RETRY_SAFE, MESSAGES
    from catalogue.tools import Tool

    undo = Tool(name="refund_card", kind="write", compensation=None, irreversible=True)
    charge = Tool(name="charge_card", kind="write", compensation={"tool": "refund_card"})
    found = next(f for f in lint([charge, undo]) if f.code == "compensation_not_retry_safe")
    assert found.params == {"undo": "refund_card"}
    assert MESSAGES[found.code] == COMPENSATION_NOT_RETRY_SAFE
    assert found.message == COMPENSATION_NOT_RETRY_SAFE.format(undo="refund_card")  # what verify prints
