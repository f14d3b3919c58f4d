"""``stalwart catalogue import`` and ``stalwart verify`` as plain functions.

``import_main(argv)`` takes the words after ``stalwart catalogue import``;
``verify_main(argv)`` those after ``stalwart verify``. Each returns the exit
code and never lets a traceback reach the user:

- import: 0 written (or printed); 1 a TypeScript function that declares no
  kind (``tool_kind_undeclared``); 2 a source that is not OpenAPI or MCP, or
  cannot be read, with the place and the reason.
- verify: 0 warnings at most; 1 any lint error; 2 an agent file (or its
  catalogue) that is not valid.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NoReturn, TextIO

from catalogue.agentfile import CATALOGUE_GIVEN
from catalogue.catalogue_file import CatalogueError, dump_catalogue
from catalogue.importers import SourceError
from catalogue.lints import Finding, format_finding, has_errors, lint
from catalogue.policies import policy_lints
from catalogue.tools import Tool

NOT_A_SOURCE = "neither an OpenAPI document nor an MCP tools/list answer"
NOTHING_TO_IMPORT = "name a SOURCE file, --mcp ADDR_OR_CMD or --declarations DIR"
TOO_MANY_SOURCES = "give one of SOURCE, --mcp or --declarations (SOURCE with --mcp names the server of a saved list)"
NO_LOADER = "the agent-file loader (catalogue.agentfile) is not available"
VERIFY_TAKES_AN_AGENT_FILE = """\
{path} is a catalogue, and stalwart verify takes an agent file (AGENT.yaml).
To lint a catalogue, name it in an agent file beside it, for example verify.yaml:

  agents:
    - name: Check
      catalogue: {name}

then run: stalwart verify verify.yaml"""
WROTE = "wrote {count} tools to {path}"


class _Parser(argparse.ArgumentParser):
    """argparse that returns its exit code instead of ending the process."""

    def exit(self, status: int = 0, message: str | None = None) -> NoReturn:
        if message:
            sys.stderr.write(message)
        raise _Exit(status)


class _Exit(Exception):
    def __init__(self, status: int) -> None:
        super().__init__(status)
        self.status = status


def _fail(message: str, err: TextIO) -> int:
    print(f"stalwart: error: {message}", file=err)
    return 2


def import_tools(source: str | None, *, mcp: str | None, declarations: str | None,
                 timeout: float, validate: bool = True) -> tuple[list[Tool], list[Finding]]:
    """The tools a source gives, and the findings that stop an import."""
    from catalogue.importers import mcp as mcp_importer
    from catalogue.importers import openapi

    if declarations:
        from catalogue.importers.typescript import import_declarations

        return import_declarations(declarations)
    if source is None and mcp:
        return mcp_importer.list_live(mcp, timeout=timeout), []
    assert source is not None
    data = openapi.read_document(source)
    if openapi.is_openapi(data):
        if not validate:
            openapi.check_refs(data, place=source, path=Path(source))
        return openapi.import_openapi(source, validate=validate), []
    if "tools" in data or "result" in data:
        return mcp_importer.tools_from_list(data, server=mcp or "", place=source), []
    raise SourceError(source, NOT_A_SOURCE)


def import_main(argv: Sequence[str], *, out: TextIO | None = None, err: TextIO | None = None) -> int:
    out, err = out or sys.stdout, err or sys.stderr
    parser = _Parser(prog="stalwart catalogue import", description="Write a catalogue (docs/agent-file.md).")
    parser.add_argument("source", nargs="?", help="an OpenAPI document or a saved MCP tools/list answer")
    parser.add_argument("--mcp", metavar="ADDR_OR_CMD", help="an MCP server: http://host/mcp or \"python server.py\"")
    parser.add_argument("--declarations", metavar="DIR", help="a folder of TypeScript .d.ts files")
    parser.add_argument("--out", metavar="FILE", help="write here instead of printing")
    parser.add_argument("--timeout", type=float, default=20.0, help="seconds to wait for a live MCP server")
    parser.add_argument("--no-validate", action="store_true",
                        help="skip openapi-spec-validator (slow on thousands of operations); $refs are still checked")
    try:
        args = parser.parse_args(list(argv))
    except _Exit as exc:
        return exc.status
    given = [x for x in (args.source, args.declarations) if x] + ([args.mcp] if args.mcp and not args.source else [])
    if not given:
        return _fail(NOTHING_TO_IMPORT, err)
    if len(given) > 1:
        return _fail(TOO_MANY_SOURCES, err)
    try:
        tools, findings = import_tools(args.source, mcp=args.mcp, declarations=args.declarations,
                                       timeout=args.timeout, validate=not args.no_validate)
    except (SourceError, CatalogueError) as exc:
        return _fail(f"{exc.place}: {exc.reason}", err)
    for finding in findings:
        print(format_finding(finding), file=err)
    if has_errors(findings):
        return 1
    text = dump_catalogue(tools)
    if args.out:
        Path(args.out).write_text(text, encoding="utf-8")
        print(WROTE.format(count=len(tools), path=args.out), file=err)
    else:
        out.write(text)
    return 0


Loader = Callable[[str], Any]


def _default_loader() -> tuple[Loader, tuple[type[BaseException], ...]]:
    from catalogue import agentfile

    return agentfile.load_agent_file, (agentfile.AgentFileError,)


def verify_main(argv: Sequence[str], *, loader: Loader | None = None,
                loader_errors: tuple[type[BaseException], ...] = (),
                out: TextIO | None = None, err: TextIO | None = None) -> int:
    out, err = out or sys.stdout, err or sys.stderr
    parser = _Parser(prog="stalwart verify", description="Lint an agent file's catalogues (docs/agent-file.md).")
    parser.add_argument("agent_file", metavar="AGENT.yaml")
    try:
        args = parser.parse_args(list(argv))
    except _Exit as exc:
        return exc.status
    if loader is None:
        try:
            loader, loader_errors = _default_loader()
        except ImportError:
            return _fail(NO_LOADER, err)
    errors: tuple[type[BaseException], ...] = (CatalogueError, SourceError, *loader_errors)
    try:
        agent_file = loader(args.agent_file)
    except errors as exc:
        if getattr(exc, "reason", None) == CATALOGUE_GIVEN:
            print(VERIFY_TAKES_AN_AGENT_FILE.format(path=args.agent_file, name=Path(args.agent_file).name), file=err)
            return 2
        return _fail(str(exc), err)
    agents = list(agent_file.agents)
    failed = False
    for agent in agents:
        findings = lint(list(agent.tools), language=getattr(agent, "default_language", "en"))
        # The agent's approval policies (docs/policies.md): each finding an error.
        findings += [Finding("error", f.code, f"policy:{f.policy}", f.message)
                     for f in policy_lints(getattr(agent, "policies", ()), list(agent.tools))]
        if len(agents) > 1:
            print(f"# {agent.name}", file=out)
        for finding in findings:
            print(format_finding(finding), file=out)
        failed = failed or has_errors(findings)
    return 1 if failed else 0
