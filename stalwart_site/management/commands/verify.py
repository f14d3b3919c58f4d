from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from catalogue.commands import verify_main


class Command(BaseCommand):
    help = "Lint an agent file's catalogue (same as `stalwart verify`); exit 1 on any error."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("agent_file")

    def handle(self, *args: Any, **options: Any) -> None:
        code = verify_main([options["agent_file"]])
        if code:
            raise SystemExit(code)
