#!/usr/bin/env python
"""Django's command-line utility for administrative tasks."""

import sys


def main() -> None:
    from stalwart_site.bootstrap import prepare

    prepare()  # the data folder, a kept SECRET_KEY, DJANGO_SETTINGS_MODULE
    from django.core.management import execute_from_command_line

    execute_from_command_line(sys.argv)


if __name__ == "__main__":
    main()
