from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from stalwart_site.cli import main


class Command(BaseCommand):
    help = "Print the planned calls of a turn as JSON; runs nothing (same as `stalwart plan`)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("agent_file")
        parser.add_argument("text")
        parser.add_argument("--language", choices=["en", "pt-BR"])
        parser.add_argument("--agent")

    def handle(self, *args: Any, **options: Any) -> None:
        argv = ["plan", options["agent_file"], options["text"]]
        for flag in ("language", "agent"):
            if options[flag]:
                argv += [f"--{flag}", options[flag]]
        main(argv)
