"""The ``stalwart`` console script (SPEC §2).

Commands that need the database start through ``stalwart_site.bootstrap``,
which sets the environment (agent file, operator token, public URL) before
Django reads its settings. An agent file that is not valid is refused before
anything is served.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

from catalogue.agentfile import AgentFile, AgentFileError, load_agent_file

EXIT_INVALID = 2


def _load(path: str, agent: str | None = None) -> AgentFile:
    try:
        af = load_agent_file(path)
        if agent:
            af.agent(agent)
        return af
    except AgentFileError as exc:
        print(f"stalwart: invalid agent file: {exc}", file=sys.stderr)
        raise SystemExit(EXIT_INVALID) from exc


def cmd_serve(args: argparse.Namespace) -> int:
    af = _load(args.agent_file, args.agent)
    from stalwart_site.bootstrap import prepare

    prepare(operator_token=args.operator_token, public_url=args.public_url)
    from stalwart_site.serve import make_app

    application = make_app(str(af.path), agent=args.agent)
    if args.dev_pair:
        from approvals.views import PAIR_MINUTES, pairing_code_create

        code = pairing_code_create()
        print(f"Pairing code: {code} (enter it at http://{args.host}:{args.port}/pair/ within {PAIR_MINUTES} minutes)",
              flush=True)
    from daphne.server import Server

    name = af.agent(args.agent).name
    print(f"Serving {name} at http://{args.host}:{args.port}/ (admin at /admin/)", flush=True)
    host = args.host.replace(":", r"\:")
    Server(application=application, endpoints=[f"tcp:port={args.port}:interface={host}"],
           signal_handlers=True, verbosity=0).run()
    return 0


def cmd_plan(args: argparse.Namespace) -> int:
    af = _load(args.agent_file, args.agent)
    agent = af.agent(args.agent)
    from catalogue.selector import Selector

    language = args.language or agent.default_language
    plan = Selector(agent.tools, agent.vocabulary).plan(args.text, language=language, exclude=agent.withdrawn)
    print(json.dumps(plan.to_json(), indent=2, ensure_ascii=False))
    return 0


def cmd_createstaff(args: argparse.Namespace) -> int:
    import os

    from stalwart_site.bootstrap import data_dir, setup

    folder = data_dir()
    if not os.environ.get("DATABASE_URL") and not folder.is_dir():
        # Never start a new database silently beside the one the server uses.
        print(f"stalwart: no data folder at {folder}: run createstaff where `stalwart serve` runs "
              "(or set STALWART_DATA_DIR or DATABASE_URL)", file=sys.stderr)
        return EXIT_INVALID
    setup()
    from approvals.services import staff_create, staff_database

    password = staff_create(username=args.name, operator=args.operator)
    role = "operator" if args.operator else "approver"
    print(f"Database: {staff_database()}")
    print(f"Created {role} '{args.name}'. One-time password: {password}")
    print("Sign in at /admin/: the first sign-in asks for a new password.")
    return 0


def cmd_catalogue(argv: Sequence[str]) -> int:
    from catalogue.commands import import_main

    return int(import_main(list(argv)))


def cmd_verify(argv: Sequence[str]) -> int:
    from catalogue.commands import verify_main

    return int(verify_main(list(argv)))


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="stalwart", description="Tools for AI agents, with a person in the loop.")
    sub = p.add_subparsers(dest="command", required=True)
    s = sub.add_parser("serve", help="serve the agents over HTTP and WebSocket")
    s.add_argument("agent_file")
    s.add_argument("--host", default="127.0.0.1")
    s.add_argument("--port", type=int, default=8700)
    s.add_argument("--agent")
    s.add_argument("--operator-token")
    s.add_argument("--public-url")
    s.add_argument("--dev-pair", action="store_true")
    s.set_defaults(func=cmd_serve)
    pl = sub.add_parser("plan", help="print the planned calls as JSON; runs nothing")
    pl.add_argument("agent_file")
    pl.add_argument("text")
    pl.add_argument("--language", choices=["en", "pt-BR"])
    pl.add_argument("--agent")
    pl.set_defaults(func=cmd_plan)
    c = sub.add_parser("createstaff", help="create a staff account; prints a one-time password")
    c.add_argument("name")
    c.add_argument("--operator", action="store_true")
    c.set_defaults(func=cmd_createstaff)
    sub.add_parser("catalogue", help="catalogue import SOURCE [--mcp ...] [--declarations DIR] [--out FILE]",
                   add_help=False)
    sub.add_parser("verify", help="lint an agent file's catalogue (exit 1 on any error)", add_help=False)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    # `catalogue` and `verify` parse their own arguments.
    if argv[:1] == ["catalogue"]:
        if argv[1:2] != ["import"]:
            print("usage: stalwart catalogue import SOURCE [--mcp ADDR_OR_CMD] [--declarations DIR] [--out FILE]",
                  file=sys.stderr)
            return EXIT_INVALID
        return cmd_catalogue(argv[2:])
    if argv[:1] == ["verify"]:
        return cmd_verify(argv[1:])
    args = parser().parse_args(argv)
    return int(args.func(args))


if __name__ == "__main__":
    raise SystemExit(main())
