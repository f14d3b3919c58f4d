"""A second Stalwart process for tests/catalogue/test_stored.py: it reads and
writes the shop's withdrawals and language setting on command, one JSON line
per command on stdout, against the database and shared cache its environment
names (the test's own).

    read                -> {"withdrawn": [...], "language": "en", "queries": 0}
    withdraw TOOL       -> {"ok": true}
    restore TOOL        -> {"ok": true}
    language CODE       -> {"ok": true}
"""

from __future__ import annotations

import json
import sys

import django


def main() -> None:
    django.setup()
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from catalogue import registry
    from catalogue.models import AgentSetting
    from catalogue.services import withdrawal_create, withdrawal_delete

    agent = registry.get_agent("Shop")
    for line in sys.stdin:
        command, _sep, argument = line.strip().partition(" ")
        if command == "read":
            with CaptureQueriesContext(connection) as queries:
                withdrawn = sorted(registry.withdrawn_tools(agent))
                language = registry.choose_language(agent)
            answer = {"withdrawn": withdrawn, "language": language, "queries": len(queries)}
        elif command == "withdraw":
            withdrawal_create(agent="Shop", tool=argument, reason="from the other process")
            answer = {"ok": True}
        elif command == "restore":
            withdrawal_delete(agent="Shop", tool=argument)
            answer = {"ok": True}
        elif command == "language":
            AgentSetting.objects.update_or_create(agent="Shop", defaults={"language": argument})
            answer = {"ok": True}
        else:
            answer = {"error": f"unknown command {command!r}"}
        print(json.dumps(answer), flush=True)


if __name__ == "__main__":
    main()
