"""The doors that run in this process, over pytest-django's database: the
Python API (``stalwart_site.desk.Desk``) and the LangChain middleware
(``doors/langgraph.py``). The console that sees their pauses is Django's
test client, signed in as a staff member."""

from __future__ import annotations

from typing import Any

from tests.support.server import SHOP

from .base import SAY, Answer, Door, Pause, step_outcome, unique


class InProcess(Door):
    workers = 1

    def __init__(self) -> None:
        self._staff: Any = None

    def rows(self, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        from django.db import connection

        with connection.cursor() as cursor:
            cursor.execute(sql.replace("?", "%s"), params)
            return list(cursor.fetchall())

    @property
    def staff(self) -> Any:
        """A staff member signed in to this process's console (Django's test client)."""
        from tests.support.staff import make_staff

        if self._staff is None:
            self._staff = make_staff(unique("ops"))
        return self._staff

    def console_get(self, path: str) -> tuple[int, str]:
        response = self.staff.get(path)
        body = b"".join(response.streaming_content) if response.streaming else response.content
        return response.status_code, body.decode()

    def console_post(self, path: str, data: dict[str, str]) -> str:
        """A POST of the console's form at ``path``; the messages shown after."""
        from tests.support.staff import csrf

        from .estate import messages_of

        response = self.staff.post(path, {**data, "csrfmiddlewaretoken": csrf(self.staff)}, follow=True)
        return messages_of(response.content.decode())

    def console_answer(self, pause_id: str, decision: str, token: str | None = None) -> str:
        import re

        page = self.console_get(f"/admin/threads/interrupt/{pause_id}/change/")[1]
        shown = re.search(r'name="token" value="([0-9a-f]+)"', page)
        token = token if token is not None else (shown.group(1) if shown else "")
        return self.console_post(f"/admin/threads/interrupt/{pause_id}/answer/", {"decision": decision, "token": token})


class DeskDoor(InProcess):
    id = "desk"
    via = "python"

    def __init__(self, session: str | None = None, agent_file: Any = None) -> None:
        """``agent_file``: another than the example shop's (P7's, with its policies), served by this
        process only while the door is open."""
        from catalogue import registry
        from stalwart_site.desk import Desk

        super().__init__()
        self._before = dict(registry._used) if agent_file else None
        self.desk = Desk(agent_file or SHOP, session=session)
        self.thread = unique("desk")

    def propose(self) -> Pause:
        waiting = self.desk.say(self.thread, SAY).waiting
        assert [p["tool"] for p in waiting] == ["charge_card"], waiting
        return Pause(id=waiting[0]["id"], token=waiting[0]["token"], thread=self.thread, shown=waiting[0])

    def answer(self, pause: Pause, decision: str, *, token: str | None = None, worker: int = 0) -> Answer:
        from threads.errors import StalwartError

        try:
            reply = self.desk.resume(pause.thread, pause.id, decision, token=pause.token if token is None else token)
        except StalwartError as err:
            return Answer(taken=False, code=err.code, body=err.body())
        return Answer(taken=True, outcome=step_outcome(reply.steps), body=reply.data)

    def close(self) -> None:
        if self._before is not None:  # the process's agent file as it was
            from catalogue import registry

            if self._before.get("path"):
                registry.use(str(self._before["path"]), self._before.get("agent"))
            else:
                registry.forget()
