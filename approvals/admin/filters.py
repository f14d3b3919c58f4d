"""The pause queue's filters: status (open by default), waiting for me, agent, source and graph."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils.translation import gettext_lazy as _

from approvals.admin.policy import waiting_for
from catalogue import registry
from catalogue.agentfile import AgentFileError
from threads.models import Interrupt, Replay


class StatusFilter(admin.SimpleListFilter):
    """Open pauses unless another status (or all) is chosen."""

    title = _("status")
    parameter_name = "status"
    ALL = "all"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, Any]]:
        return [*Interrupt.Status.choices, (self.ALL, _("All"))]

    def choices(self, changelist: Any) -> Any:
        current = self.value() or Interrupt.Status.OPEN
        for value, title in self.lookup_choices:
            yield {"selected": current == value, "display": title,
                   "query_string": changelist.get_query_string({self.parameter_name: value})}

    def queryset(self, request: HttpRequest, queryset: QuerySet[Interrupt]) -> QuerySet[Interrupt]:
        value = self.value() or Interrupt.Status.OPEN
        return queryset if value == self.ALL else queryset.filter(status=value)


class MineFilter(admin.SimpleListFilter):
    """The open pauses this staff member may answer and has not approved (``approvals.admin.policy``)."""

    title = _("who may answer")
    parameter_name = "mine"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, Any]]:
        return [("me", _("waiting for me"))]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Interrupt]) -> QuerySet[Interrupt]:
        if self.value() != "me":
            return queryset
        user = request.user
        groups = set(user.groups.values_list("name", flat=True))  # type: ignore[union-attr]
        return waiting_for(queryset, user.get_username(), groups)


class AgentFilter(admin.SimpleListFilter):
    """The agents the agent file serves: no DISTINCT over the whole queue."""

    title = _("agent")
    parameter_name = "agent"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        try:
            return [(a.name, a.name) for a in registry.agent_file().agents]
        except (registry.NoAgentFile, AgentFileError):
            return []

    def queryset(self, request: HttpRequest, queryset: QuerySet[Interrupt]) -> QuerySet[Interrupt]:
        return queryset.filter(agent=self.value()) if self.value() else queryset


class SourceFilter(admin.SimpleListFilter):
    """Where a pause comes from: Stalwart's own runs, or a LangGraph graph's interrupts (docs/langgraph.md),
    which the LangGraph door's rows of the replay journal name."""

    title = _("source")
    parameter_name = "source"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, Any]]:
        return [("stalwart", _("Stalwart")), ("langgraph", _("LangGraph"))]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Interrupt]) -> QuerySet[Interrupt]:
        mirrored = Replay.objects.filter(door=Replay.Door.LANGGRAPH).values("run_id")
        if self.value() == "langgraph":
            return queryset.filter(run_id__in=mirrored)
        if self.value() == "stalwart":
            return queryset.exclude(run_id__in=mirrored)
        return queryset


class GraphFilter(admin.SimpleListFilter):
    """The graphs whose interrupts were mirrored (a mirrored pause's agent is its graph), as the
    LangGraph door's rows of the replay journal name them. Offered once the queue shows LangGraph's
    pauses (``?source=langgraph``, or a graph chosen): the queue's own pages read nothing more."""

    title = _("graph")
    parameter_name = "graph"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        if request.GET.get("source") != "langgraph" and not request.GET.get(self.parameter_name):
            return []
        graphs = (Replay.objects.filter(door=Replay.Door.LANGGRAPH).order_by("caller")
                  .values_list("caller", flat=True).distinct())
        return [(n, n) for n in graphs]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Interrupt]) -> QuerySet[Interrupt]:
        return queryset.filter(agent=self.value()) if self.value() else queryset


# A mirrored pause's decisions the console offers as buttons: those that need no text of their own.
