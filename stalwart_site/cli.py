"""The ``stalwart`` console script (docs/getting-started.md, "The commands").

Commands that need the database start through ``stalwart_site.bootstrap``,
which sets the environment (agent file, operator token, public URL) before
Django reads its settings. An agent file that is not valid is refused before
anything is served.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import sys
from collections.abc import Sequence
from pathlib import Path

from catalogue.agentfile import AgentFile, AgentFileError, load_agent_file

EXIT_INVALID = 2
EXIT_PORT_BUSY = 1
MCP_WHERE = ("Database: {database}; data folder: {folder} (set STALWART_DATA_DIR or DATABASE_URL to use "
             "the console's)")
REFUSED_PORT = "stalwart: cannot listen on {host}:{port}: {reason}. Is another server running there? Choose --port."


def _load(path: str, agent: str | None = None) -> AgentFile:
    try:
        af = load_agent_file(path)
        if agent:
            af.agent(agent)
        return af
    except AgentFileError as exc:
        print(f"stalwart: invalid agent file: {exc}", file=sys.stderr)
        raise SystemExit(EXIT_INVALID) from exc


def port_free(host: str, port: int) -> str | None:
    """None when ``host:port`` can be listened on now, else the reason it cannot.

    Checked before anything starts: daphne on a busy port logs the error and
    returns normally, which would look like a clean exit."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as s:
        # As twisted does, so a port in TIME_WAIT after a restart is not "busy".
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind((host, port))
        except OSError as exc:
            return exc.strerror or str(exc)
    return None


def cmd_serve(args: argparse.Namespace) -> int:
    af = _load(args.agent_file, args.agent)
    # /pair/ is served only with --dev-pair (settings.STALWART_DEV_PAIR); else it is 404.
    os.environ["STALWART_DEV_PAIR"] = "1" if args.dev_pair else ""
    from stalwart_site.bootstrap import UnsafeConfiguration, prepare

    try:
        prepare(operator_token=args.operator_token, public_url=args.public_url, webhook_url=args.webhook)
    except UnsafeConfiguration as exc:
        print(f"stalwart: refused to start: {exc}", file=sys.stderr)
        return EXIT_INVALID
    busy = port_free(args.host, args.port)
    if busy:
        print(REFUSED_PORT.format(host=args.host, port=args.port, reason=busy), file=sys.stderr)
        return EXIT_PORT_BUSY
    from django.core.exceptions import ImproperlyConfigured

    from stalwart_site.serve import make_app

    try:
        application = make_app(str(af.path), agent=args.agent)
    except ImproperlyConfigured as exc:
        print(f"stalwart: {exc}", file=sys.stderr)
        return EXIT_INVALID
    from stalwart_site.checks import serve_checks_pass

    if not serve_checks_pass(lambda line: print(line, file=sys.stderr, flush=True)):
        return EXIT_INVALID
    if args.dev_pair:
        from approvals.pairing import PAIR_MINUTES, pairing_code_create

        code = pairing_code_create()
        print(f"Pairing code: {code} (enter it at http://{args.host}:{args.port}/pair/ within {PAIR_MINUTES} minutes)",
              flush=True)
    from stalwart_site.guard import Server  # daphne's, answering what twisted refuses in JSON

    name = af.agent(args.agent).name
    from doors.mcp.http import mcp_mode
    from stalwart_site.context import context_mode

    print(context_mode(), flush=True)
    print(mcp_mode(), flush=True)
    from stalwart_site.checks import policy_warnings

    for line in policy_warnings(af.agent(args.agent)):
        print(line, file=sys.stderr, flush=True)
    print(f"Serving {name} at http://{args.host}:{args.port}/ (admin at /admin/)", flush=True)
    host = args.host.replace(":", r"\:")
    server = Server(application=application, endpoints=[f"tcp:port={args.port}:interface={host}"],
                    signal_handlers=True, verbosity=0)
    server.run()
    if not server.listening_addresses:  # lost a race for the port after the check: still not a clean exit
        print(REFUSED_PORT.format(host=args.host, port=args.port, reason="could not listen"), file=sys.stderr)
        return EXIT_PORT_BUSY
    return 0


def cmd_mcp(args: argparse.Namespace) -> int:
    """The MCP gateway over stdio (docs/mcp.md): stdout is the protocol's, so every word goes to stderr."""
    af = _load(args.agent_file, args.agent)
    from stalwart_site.bootstrap import UnsafeConfiguration, prepare

    try:
        prepare(public_url=args.public_url)
    except UnsafeConfiguration as exc:
        print(f"stalwart: refused to start: {exc}", file=sys.stderr)
        return EXIT_INVALID
    from django.core.exceptions import ImproperlyConfigured

    from stalwart_site.serve import make_app

    try:
        make_app(str(af.path), agent=args.agent)  # Django, the database, the listeners and this process's worker
    except ImproperlyConfigured as exc:
        print(f"stalwart: {exc}", file=sys.stderr)
        return EXIT_INVALID
    import asyncio

    from django.conf import settings

    from approvals.services import staff_database
    from doors.mcp.stdio import serve_stdio
    from stalwart_site.bootstrap import data_dir

    name = af.agent(args.agent).name
    # Said first: a client that launched this from another folder gets another data folder
    # (and database) unless STALWART_DATA_DIR or DATABASE_URL says otherwise.
    print(MCP_WHERE.format(database=staff_database(), folder=data_dir()), file=sys.stderr, flush=True)
    print(f"Serving {name}'s tools over MCP (stdio); pauses wait in the console", file=sys.stderr, flush=True)
    asyncio.run(serve_stdio(name, base_url=settings.PUBLIC_URL or "http://127.0.0.1:8700"))
    return 0


def cmd_plan(args: argparse.Namespace) -> int:
    af = _load(args.agent_file, args.agent)
    agent = af.agent(args.agent)
    from catalogue.selector import Selector

    language = args.language or agent.default_language
    plan = Selector(agent.tools, agent.vocabulary).plan(args.text, language=language, exclude=agent.withdrawn)
    # --explain adds "explain": the rule that bound each argument, why each step
    # has its tool, or why the turn was left unread. The plan itself is unchanged.
    print(json.dumps(plan.to_json(explain=args.explain), indent=2, ensure_ascii=False))
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

    password = staff_create(username=args.name, operator=args.operator, groups=args.group)
    role = "operator" if args.operator else "approver"
    print(f"Database: {staff_database()}")
    groups = "".join(f", in {g}" for g in args.group)
    print(f"Created {role} '{args.name}'{groups}. One-time password: {password}")
    print("Sign in at /admin/: the first sign-in asks for a new password.")
    if args.operator:
        from stalwart_site.bootstrap import OPERATOR_TOKEN_HOW

        print(OPERATOR_TOKEN_HOW)
    return 0


def _count(n: int, thing: str) -> str:
    return f"{n} {thing}" + ("" if n == 1 else "s")


def cmd_reset_demo(args: argparse.Namespace) -> int:
    import os

    from examples import shop
    from stalwart_site.bootstrap import data_dir, setup

    folder = data_dir()
    if not os.environ.get("DATABASE_URL") and not folder.is_dir():
        print(f"Nothing to reset: no data folder at {folder} (the demo starts afresh).")
        return 0
    af = _load(str(Path(shop.__file__).parent / "agent.yaml"))
    setup(agent_file=af.path)
    from approvals.services import staff_database
    from stalwart_site.demo import demo_reset

    done = demo_reset(agents=[a.name for a in af.agents])
    print(f"Reset the demo in {staff_database()}: forgot {_count(done.threads, 'thread')} with their runs and pauses; "
          f"the shop's orders are back as seeded (4411 unpaid); kept {_count(done.staff, 'staff account')} "
          f"and {_count(done.mcp_keys, 'MCP client key')}.")
    if done.withdrawn:
        print(f"Still withdrawn: {', '.join(done.withdrawn)} (restore in the console: /admin/catalogue/tool/).")
    return 0


def cmd_mcp_client(args: argparse.Namespace) -> int:
    """An MCP client's key, made (and printed once) or revoked, as the console does it."""
    import os

    from stalwart_site.bootstrap import data_dir, setup

    if not os.environ.get("DATABASE_URL") and not data_dir().is_dir():
        print(f"stalwart: no data folder at {data_dir()}: run this where `stalwart serve` runs", file=sys.stderr)
        return EXIT_INVALID
    setup()
    from doors.mcp.clients import mcp_client_create, mcp_client_revoke
    from doors.mcp.models import McpClient

    if args.revoke:
        client = McpClient.objects.filter(name=args.name).first()
        if client is None:
            print(f"stalwart: no MCP client named {args.name!r}", file=sys.stderr)
            return EXIT_INVALID
        mcp_client_revoke(client=client)
        print(f"Revoked the key of MCP client '{args.name}': its calls are refused from now on.")
        return 0
    context = {}
    for pair in args.ctx:
        name, sep, value = pair.partition("=")
        if not sep or not name:
            print(f"stalwart: --ctx takes NAME=VALUE, not {pair!r}", file=sys.stderr)
            return EXIT_INVALID
        context[name] = value
    if McpClient.objects.filter(name=args.name).exists():
        print(f"stalwart: an MCP client named {args.name!r} exists; revoke it or choose another name", file=sys.stderr)
        return EXIT_INVALID
    _client, key = mcp_client_create(name=args.name, privileges=args.priv, context=context, by="stalwart mcp-client")
    print(f"Made MCP client '{args.name}'. Its key, shown this once: {key}")
    print("Send it as Authorization: Bearer <key> (docs/mcp.md shows each client's configuration).")
    return 0


def cmd_langgraph_key(args: argparse.Namespace) -> int:
    """A LangGraph caller's x-api-key, made (and printed once) or revoked, as the console does it."""
    import os

    from stalwart_site.bootstrap import data_dir, setup

    if not os.environ.get("DATABASE_URL") and not data_dir().is_dir():
        print(f"stalwart: no data folder at {data_dir()}: run this where the LangGraph bridge runs", file=sys.stderr)
        return EXIT_INVALID
    setup()
    from doors.keys import key_create, key_revoke
    from doors.langgraph.models import LangGraphKey

    found = LangGraphKey.objects.filter(name=args.name).first()
    if args.revoke:
        if found is None:
            print(f"stalwart: no LangGraph key named {args.name!r}", file=sys.stderr)
            return EXIT_INVALID
        key_revoke(found)
        print(f"Revoked the LangGraph key '{args.name}': its calls are refused from now on.")
        return 0
    if found is not None:
        print(f"stalwart: a LangGraph key named {args.name!r} exists; revoke it or choose another name",
              file=sys.stderr)
        return EXIT_INVALID
    _made, key = key_create(LangGraphKey, name=args.name, privileges=args.may or ["run", "answer"],
                            by="stalwart langgraph-key")
    print(f"Made LangGraph key '{args.name}' ({', '.join(sorted(args.may or ['run', 'answer']))}). "
          f"Shown this once: {key}")
    print("Send it as x-api-key (docs/langgraph.md, \"Keys\").")
    return 0


def cmd_context_token(args: argparse.Namespace) -> int:
    from stalwart_site.context import ContextArgumentError, context_token

    try:
        token = context_token(ctx=args.ctx, priv=args.priv, sub=args.sub, ttl=args.ttl, secret=args.secret)
    except ContextArgumentError as exc:
        print(f"stalwart context-token: {exc}", file=sys.stderr)
        return EXIT_INVALID
    print(token)
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
    s.add_argument("--webhook", metavar="URL",
                   help="POST each new pause here, signed under STALWART_WEBHOOK_SECRET (STALWART_WEBHOOK_URL)")
    s.set_defaults(func=cmd_serve)
    m = sub.add_parser("mcp", help="serve the agent's tools over MCP on stdio (for clients that launch servers)")
    m.add_argument("agent_file")
    m.add_argument("--agent")
    m.add_argument("--public-url", help="where the console is served (the pauses' links)")
    m.set_defaults(func=cmd_mcp)
    pl = sub.add_parser("plan", help="print the planned calls as JSON; runs nothing")
    pl.add_argument("agent_file")
    pl.add_argument("text")
    pl.add_argument("--language", choices=["en", "pt-BR"])
    pl.add_argument("--agent")
    pl.add_argument("--explain", action="store_true",
                    help="also print which rule bound each argument, or why the turn was unread")
    pl.set_defaults(func=cmd_plan)
    c = sub.add_parser("createstaff", help="create a staff account; prints a one-time password")
    c.add_argument("name")
    c.add_argument("--operator", action="store_true")
    c.add_argument("--group", action="append", default=[], metavar="NAME",
                   help="also a member of this staff group (an approval policy's; made when missing)")
    c.set_defaults(func=cmd_createstaff)
    r = sub.add_parser("reset-demo", help="put the example shop's demo back as it started: its orders as seeded, "
                       "no threads, runs or pauses; staff accounts, MCP client and LangGraph keys, withdrawals and settings "
                       "are kept")
    r.set_defaults(func=cmd_reset_demo)
    mc = sub.add_parser("mcp-client", help="make an MCP client's key (printed once), or --revoke it")
    mc.add_argument("name")
    mc.add_argument("--priv", action="append", default=[], metavar="NAME", help="a privilege its calls carry")
    mc.add_argument("--ctx", action="append", default=[], metavar="NAME=VALUE", help="a context value its calls carry")
    mc.add_argument("--revoke", action="store_true")
    mc.set_defaults(func=cmd_mcp_client)
    lk = sub.add_parser("langgraph-key", help="make a LangGraph caller's x-api-key (printed once), or --revoke it")
    lk.add_argument("name")
    lk.add_argument("--may", action="append", choices=["run", "answer"], metavar="run|answer",
                    help="what it may do (repeat it; default both): start runs, answer interrupts")
    lk.add_argument("--revoke", action="store_true")
    lk.set_defaults(func=cmd_langgraph_key)
    ct = sub.add_parser("context-token", help="mint a signed Stalwart-Context token (HS256 JWT)")
    ct.add_argument("--ctx", action="append", default=[], metavar="NAME=VALUE",
                    help="a context value (repeat it); a JSON object also works: --ctx '{\"customer\": \"c-208\"}'")
    ct.add_argument("--priv", action="append", default=[], metavar="NAME", help="a privilege (repeat it)")
    ct.add_argument("--sub", help="who the person is, as the site knows them")
    ct.add_argument("--ttl", type=int, default=3600, help="seconds the token is good for (default 3600)")
    ct.add_argument("--secret", help="default: STALWART_CONTEXT_SECRET")
    ct.set_defaults(func=cmd_context_token)
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
