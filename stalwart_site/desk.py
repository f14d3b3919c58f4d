"""The Python API: talk to an agent without HTTP.

    desk = Desk("examples/shop/agent.yaml")
    reply = desk.say("u-17", "charge 40 to order 4411")
    reply.waiting[0]["tool"]            # 'charge_card'
    reply = desk.confirm("u-17", "approve")
    "ch-4411" in reply.text             # True

``Reply`` mirrors the HTTP message answer (SPEC §10): ``.text``,
``.waiting``, ``.refusals``, ``.steps``, ``.rollback`` and ``.data`` (the
whole answer). The Desk answers as its own session, through the same
services, claims and tokens as the HTTP routes.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


@dataclass
class Reply:
    data: dict[str, Any]
    text: str = ""
    waiting: list[dict[str, Any]] = field(default_factory=list)
    refusals: list[dict[str, Any]] = field(default_factory=list)
    steps: list[dict[str, Any]] = field(default_factory=list)
    rollback: Any = None

    @classmethod
    def of(cls, data: dict[str, Any]) -> Reply:
        return cls(
            data=data,
            text=(data.get("reply") or {}).get("text", ""),
            waiting=list(data.get("waiting", [])),
            refusals=list(data.get("refusals", [])),
            steps=list(data.get("steps", [])),
            rollback=data.get("rollback"),
        )


class Desk:
    def __init__(self, agent_file: str | Path, *, agent: str | None = None, session: str | None = None) -> None:
        from catalogue.agentfile import load_agent_file

        self.agent_file = load_agent_file(agent_file)
        self.agent = agent
        self.session = session or secrets.token_urlsafe(24)
        from django.apps import apps

        from stalwart_site.bootstrap import setup

        # The first Desk of a process starts Django and migrates; later ones only switch the agent file.
        setup(agent_file=self.agent_file.path, agent=agent, migrate=not apps.ready)

    @property
    def _session_hash(self) -> str:
        from threads.selectors import session_hash

        return session_hash(self.session)

    def say(self, thread: str, text: str, context: dict[str, Any] | None = None,
            language: str | None = None, privileges: list[str] | tuple[str, ...] = ()) -> Reply:
        """A turn. The Desk runs in the team's own process, so ``context`` and
        ``privileges`` are taken as given (no token: the process is trusted)."""
        from threads.engine import turn_submit
        from threads.selectors import answer_view

        if isinstance(privileges, str):
            raise TypeError("privileges is a list of names, such as ['refunds'], not one string")
        advance = turn_submit(thread_id=thread, session_hash=self._session_hash, text_=text,
                              language=language, context=context, privileges=list(privileges),
                              agent_name=self.agent)
        return Reply.of(answer_view(advance))

    def waiting(self, thread: str) -> list[dict[str, Any]]:
        from threads.engine import open_pauses
        from threads.selectors import thread_access

        return open_pauses(thread_access(thread_id=thread, session=self.session).id)

    def _open(self, thread: str) -> tuple[Any, list[dict[str, Any]]]:
        """The thread (this session's) and what waits in it, read in one transaction."""
        from django.db import transaction

        from threads.engine import open_pauses
        from threads.selectors import thread_access

        with transaction.atomic():
            t = thread_access(thread_id=thread, session=self.session)
            return t, open_pauses(t.id)

    def _answer(self, thread: Any, interrupt_id: str, decision: str, token: str, answer: Any,
                pause: Any = None) -> Reply:
        from approvals.answers import interrupt_answer
        from threads.selectors import answer_view

        advance = interrupt_answer(thread=thread, interrupt_id=interrupt_id, decision=decision, token=token,
                                   answer=answer, answered_by="desk", pause=pause)
        return Reply.of(answer_view(advance))

    def resume(self, thread: str, interrupt_id: str, decision: str, token: str | None = None,
               answer: Any = None) -> Reply:
        t, open_ = self._open(thread)
        if token is None:
            token = next((p["token"] for p in open_ if p["id"] == interrupt_id), "")
        return self._answer(t, interrupt_id, decision, token, answer)

    def confirm(self, thread: str, decision: str, waiting: str | None = None, answer: Any = None) -> Reply:
        """Answer the pause ``waiting`` (an id), or the first that waits: found
        with its thread in one read, and answered with the token it shows."""
        import secrets as _secrets

        from threads.engine import expire_questions, thread_pauses, token_for
        from threads.errors import NotFound
        from threads.models import Interrupt
        from threads.selectors import thread_access

        pauses = thread_pauses(thread, whole=True)
        if pauses and not _secrets.compare_digest(pauses[0].thread.session_hash, self._session_hash):
            raise NotFound()  # another session's thread: the same 404 as one that does not exist
        if expire_questions(thread, pauses):  # questions past their time close first
            pauses = [p for p in pauses if p.status == Interrupt.Status.OPEN]
        if not pauses:
            thread_access(thread_id=thread, session=self.session)  # a 404 for a thread not this session's
            raise LookupError(f"nothing waits in thread {thread!r}: call say() first")
        pause = next((p for p in pauses if p.id == waiting), None) if waiting else pauses[0]
        if pause is None:
            raise LookupError(f"no open pause {waiting!r} in thread {thread!r}")
        return self._answer(pause.thread, pause.id, decision, token_for(pause), answer, pause=pause)

    def answer(self, thread: str, text: str | None = None, index: int | None = None) -> Reply:
        """Answer the first open question (``ask``)."""
        ans = {"kind": "choice", "index": index} if index is not None else {"kind": "open", "text": text}
        return self.confirm(thread, "answer", answer=ans)
