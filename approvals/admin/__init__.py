"""The answering side in the operator console: the pause queue and pause page
(``pauses``), and the notification outbox (``outbox``)."""

from approvals.admin import outbox, pauses

__all__ = ["outbox", "pauses"]
