"""The agent file (docs/agent-file.md): valid files load; invalid ones name the place."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from catalogue.agentfile import CATALOGUE_GIVEN, AgentFileError, load_agent_file

ROOT = Path(__file__).resolve().parents[2]
SHOP = ROOT / "examples" / "shop" / "agent.yaml"

TOOLS_PY = '''
def get_book(book_id: str) -> dict:
    """Show a book."""
    return {"book_id": book_id}

def lend_book(book_id: str, member: str, days: int = 14) -> dict:
    """Lend a book to a member."""
    return {"loan": "l-1"}
'''

VALID = """
agents:
  - name: Library
    purpose: I lend books.
    tools:
      get_book: {python: "tools:get_book", read: true}
      lend_book: {python: "tools:lend_book"}
  - name: Second
    tools:
      get_book: {python: "tools:get_book", read: true}
"""


def write(tmp_path: Path, text: str) -> Path:
    (tmp_path / "tools.py").write_text(TOOLS_PY)
    path = tmp_path / "agent.yaml"
    path.write_text(text)
    return path


def test_the_shop_loads_with_schemas_from_signatures():
    agent = load_agent_file(SHOP).agent()
    charge = agent.tool("charge_card")
    assert charge is not None and charge.kind == "write" and charge.idempotency == {"argument": "idempotency_key"}
    assert charge.input_schema["required"] == ["order_id", "amount"]
    assert agent.tool("get_order").kind == "read"  # type: ignore[union-attr]


def test_tools_beside_the_file_import_and_an_unmarked_tool_is_a_write(tmp_path):
    af = load_agent_file(write(tmp_path, VALID))
    assert [a.name for a in af.agents] == ["Library", "Second"]
    lend = af.agent("Library").tool("lend_book")
    assert lend is not None and lend.kind == "write" and lend.description == "Lend a book to a member."
    assert lend.input_schema["properties"]["days"] == {"type": "integer", "default": 14}


@pytest.mark.parametrize(
    ("text", "place", "reason"),
    [
        (VALID.replace("purpose:", "porpose:"), "agents[0].porpose", "unknown key"),
        (VALID.replace("tools:get_book\", read", "tools:nope\", read", 1), "agents[0].tools.get_book.python",
         "no 'nope'"),
        (VALID.replace("tools:lend_book\"}", "tools:lend_book\", compensation: {tool: unlend}}"),
         "agents[0].tools.lend_book.compensation", "names no tool"),
        (VALID.replace("tools:get_book\", read", "missing_module:get_book\", read", 1),
         "agents[0].tools.get_book.python", "cannot import module"),
        (VALID + "\nextra: 1\n", "extra", "unknown key"),
        (VALID.replace("purpose: I lend books.", "language: fr"), "agents[0].language", "not one of"),
        ("agents: [\n", "line", "not valid YAML"),
        ("agents: []\n", "agents", "non-empty"),
        (VALID.replace("tools:lend_book\"}", "tools:lend_book\", confirm: {fr: \"Prêter ?\"}}"),
         "agents[0].tools.lend_book.confirm", "not a language"),
        (VALID.replace("tools:lend_book\"}", "tools:lend_book\", labels: [member]}"),
         "agents[0].tools.lend_book.labels", "must map each argument"),
        (VALID.replace("tools:lend_book\"}", "tools:lend_book\", labels: {member: {pt-BR: ''}}}"),
         "agents[0].tools.lend_book.labels", "non-empty"),
    ],
)
def test_an_invalid_file_names_the_place_and_the_reason(tmp_path, text, place, reason):
    with pytest.raises(AgentFileError) as err:
        load_agent_file(write(tmp_path, text))
    assert err.value.place.startswith(place)
    assert reason in err.value.reason
    assert str(tmp_path / "agent.yaml") in str(err.value)


def test_serve_refuses_an_invalid_file_and_exits_non_zero(tmp_path):
    path = write(tmp_path, VALID.replace("purpose:", "porpose:"))
    result = subprocess.run(
        [sys.executable, "-m", "stalwart_site.cli", "serve", str(path), "--port", "1"],
        cwd=ROOT, capture_output=True, text=True, timeout=60,
        env={"PATH": "/usr/bin:/bin", "STALWART_DATA_DIR": str(tmp_path / "data")},
    )
    assert result.returncode == 2
    assert "agents[0].porpose" in result.stderr and "unknown key" in result.stderr
    assert "Traceback" not in result.stderr


def test_a_catalogue_given_as_the_agent_file_is_named_a_catalogue(tmp_path):  # type: ignore[no-untyped-def]
    path = tmp_path / "catalogue.json"
    path.write_text('{"version": 1, "tools": []}', encoding="utf-8")
    with pytest.raises(AgentFileError) as err:
        load_agent_file(path)
    assert err.value.reason == CATALOGUE_GIVEN and "unknown key" not in str(err.value)


def test_a_tools_words_load_per_language(tmp_path):
    text = VALID.replace("tools:lend_book\"}", "tools:lend_book\", confirm: {en: \"Lend it?\", pt-BR: \"Emprestar?\"},"
                         " labels: {member: {en: Member, pt-BR: Sócio}, days: Days}}")
    tool = load_agent_file(write(tmp_path, text)).agent("Library").tool("lend_book")
    assert tool is not None
    assert tool.confirm == {"en": "Lend it?", "pt-BR": "Emprestar?"}
    assert tool.labels == {"member": {"en": "Member", "pt-BR": "Sócio"}, "days": "Days"}
