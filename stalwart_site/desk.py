"""The Python API: talk to an agent without HTTP.

    desk = Desk("examples/shop/agent.yaml")
    reply = desk.say("u-17", "charge 40 to order 4411")
    reply.waiting[0]["tool"]            # 'charge_card'
    reply = desk.confirm("u-17", "approve")
    "ch-4411" in reply.text             # True

``Reply`` mirrors the HTTP message answer (docs/http-api.md): ``.text``,
``.waiting``, ``.refusals``, ``.steps``, ``.rollback`` and ``.data`` (the
whole answer).

Under an approval policy (docs/policies.md), an approval short of the quorum
is not an error: ``resume`` and ``confirm`` return a ``Reply`` whose
``.recorded`` is HTTP's 202 body (``{"status": "approval_recorded",
"detail", "interrupt_id", "approvals"}``), whose ``.text`` says so and whose
``.waiting`` lists the thread's open pauses, that one still among them with
its ``approvals``; nothing ran. An answer the policy does not let the Desk
give raises ``threads.errors.NotAnApprover``, as a stale answer raises
``Stale``. The Desk answers as its own session, through the same
services and claims as the HTTP routes; ``resume`` checks the token it is
given, ``confirm`` answers the pause it finds inside the answer's own unit
of work (so no token goes out and back).
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

DETAIL_NOT_THIS_SESSION = ("There is no thread {thread!r} for this Desk's session: a thread belongs to the "
                           "session that opened it. To answer another session's thread, make the Desk with "
                           "Desk(..., session=<that session>).")


@dataclass
class Reply:
    data: dict[str, Any]
    text: str = ""
    waiting: list[dict[str, Any]] = field(default_factory=list)
    refusals: list[dict[str, Any]] = field(default_factory=list)
    steps: list[dict[str, Any]] = field(default_factory=list)
    rollback: Any = None
    recorded: dict[str, Any] | None = None  # an approval short of a policy's quorum (see the module's docstring)

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

    def key(self, thread: str) -> str:
        """The stored key of this session's thread ``thread``: how staff, the
        console, signed channels and webhooks name it."""
        from threads.keys import thread_key

        return thread_key(thread, self._session_hash)

    def say(self, thread: str, text: str, context: dict[str, Any] | None = None,
            language: str | None = None, privileges: list[str] | tuple[str, ...] = ()) -> Reply:
        """A turn. The Desk runs in the team's own process, so ``context`` and
        ``privileges`` are taken as given (no token: the process is trusted)."""
        from threads.engine import Proposer, turn_submit

        if isinstance(privileges, str):
            raise TypeError("privileges is a list of names, such as ['refunds'], not one string")
        return Reply.of(turn_submit(thread_id=self.key(thread), session_hash=self._session_hash, text=text,
                                    language=language, context=context, privileges=list(privileges),
                                    agent=self.agent, proposer=Proposer(door="python")).to_json())

    def waiting(self, thread: str) -> list[dict[str, Any]]:
        from threads.engine import open_pauses

        return [p.to_json() for p in open_pauses(self._thread(thread))]

    def _thread(self, thread: str) -> str:
        """This session's thread (else a 404 that says how threads belong to sessions)."""
        from threads.errors import NotFound
        from threads.selectors import thread_access

        try:
            return thread_access(thread_id=thread, session=self.session).id
        except NotFound as exc:
            raise NotFound(DETAIL_NOT_THIS_SESSION.format(thread=thread)) from exc

    def _recorded(self, thread: str, recorded: Any) -> Reply:
        """An approval short of a policy's quorum: recorded, nothing ran, the pause still waits."""
        body = recorded.body()
        waiting = self.waiting(thread)
        return Reply(data={**body, "thread": thread, "waiting": waiting}, text=body["detail"], waiting=waiting,
                     recorded=body)

    def resume(self, thread: str, interrupt_id: str, decision: str, token: str | None = None,
               answer: Any = None) -> Reply:
        """Answer the pause ``interrupt_id`` (with the token it shows, unless given). Under an approval
        policy, an approval short of its quorum returns a Reply with ``.recorded`` set and the pause
        still in ``.waiting``; an answer the policy refuses raises ``NotAnApprover``."""
        from threads.engine import Via, open_pauses, pause_answer
        from threads.errors import ApprovalRecorded

        thread_id = self._thread(thread)
        if token is None:
            token = next((p.token for p in open_pauses(thread_id) if p.id == interrupt_id), "")
        try:
            return Reply.of(pause_answer(thread_id=thread_id, pause_id=interrupt_id, decision=decision,
                                         token=token, answer=answer, by="desk", via=Via.PYTHON).to_json())
        except ApprovalRecorded as recorded:
            return self._recorded(thread, recorded)

    def confirm(self, thread: str, decision: str, waiting: str | None = None, answer: Any = None) -> Reply:
        """Answer the pause ``waiting`` (an id), or the oldest that waits. The
        pause is found inside the answer's own unit of work, with the thread's
        session checked in the same read; no token goes out and back, since
        the pause answered is the one found there (``resume`` takes a token). Under an approval
        policy, as ``resume``: a Reply with ``.recorded`` short of the quorum, ``NotAnApprover`` when
        the policy does not let the Desk answer."""
        from threads.engine import Via, pause_answer
        from threads.errors import ApprovalRecorded, NotFound

        try:
            return Reply.of(pause_answer(thread_id=self.key(thread), pause_id=waiting, decision=decision, token="",
                                         check_token=False, session_hash=self._session_hash, answer=answer,
                                         by="desk", via=Via.PYTHON).to_json())
        except ApprovalRecorded as recorded:
            return self._recorded(thread, recorded)
        except NotFound:
            self._thread(thread)  # a thread not this session's: the 404 that says so; else no such pause
            if waiting:
                raise LookupError(f"no open pause {waiting!r} in thread {thread!r}") from None
            raise LookupError(f"nothing waits in thread {thread!r}: call say() first") from None

    def answer(self, thread: str, text: str | None = None, index: int | None = None) -> Reply:
        """Answer the first open question (``ask``)."""
        ans = {"kind": "choice", "index": index} if index is not None else {"kind": "open", "text": text}
        return self.confirm(thread, "answer", answer=ans)
