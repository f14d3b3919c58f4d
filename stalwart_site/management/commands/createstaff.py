from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from approvals.services import staff_create, staff_database
from stalwart_site.bootstrap import OPERATOR_TOKEN_HOW


class Command(BaseCommand):
    help = "Create a staff account (an approver, or with --operator an operator); prints a one-time password."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("name")
        parser.add_argument("--operator", action="store_true")
        parser.add_argument("--group", action="append", default=[], metavar="NAME",
                            help="also a member of this staff group (an approval policy's; made when missing)")

    def handle(self, *args: Any, **options: Any) -> None:
        password = staff_create(username=options["name"], operator=options["operator"], groups=options["group"])
        role = "operator" if options["operator"] else "approver"
        self.stdout.write(f"Database: {staff_database()}")
        groups = "".join(f", in {g}" for g in options["group"])
        self.stdout.write(f"Created {role} '{options['name']}'{groups}. One-time password: {password}")
        if options["operator"]:
            self.stdout.write(OPERATOR_TOKEN_HOW)
