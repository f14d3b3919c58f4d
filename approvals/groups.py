"""The console's two groups and what each may do (docs/operating.md, "Staff accounts"): plain data, read
by the data migrations that make them (``0005_staff_groups``, and those that
give them more later, ``0009_operators_read_feedback``) and by
``staff_create`` (which makes them again where a test flushed the tables).

``approvers`` answer pauses and see threads; ``operators`` also roll back,
withdraw and restore tools, change settings, read the feedback list, and make
and revoke MCP clients' and LangGraph callers' keys. Two permissions are the
console's own: ``threads.answer_interrupt`` and ``threads.rollback_run``.
"""

from __future__ import annotations

APPROVERS = "approvers"
OPERATORS = "operators"

# (app_label, model, codename) -> name, for the permissions no model declares.
OWN_PERMISSIONS: dict[tuple[str, str, str], str] = {
    ("threads", "interrupt", "answer_interrupt"): "Can answer pause",
    ("threads", "run", "rollback_run"): "Can roll back run",
}

APPROVER_PERMISSIONS: list[tuple[str, str, str]] = [
    ("threads", "interrupt", "view_interrupt"), ("threads", "interrupt", "answer_interrupt"),
    ("threads", "thread", "view_thread"),
]
OPERATOR_PERMISSIONS: list[tuple[str, str, str]] = [
    *APPROVER_PERMISSIONS,
    ("threads", "run", "rollback_run"),
    ("catalogue", "tool", "view_tool"),
    ("catalogue", "withdrawal", "view_withdrawal"), ("catalogue", "withdrawal", "add_withdrawal"),
    ("catalogue", "withdrawal", "change_withdrawal"), ("catalogue", "withdrawal", "delete_withdrawal"),
    ("catalogue", "agentsetting", "view_agentsetting"), ("catalogue", "agentsetting", "change_agentsetting"),
    ("threads", "feedback", "view_feedback"),
    ("doors_mcp", "mcpclient", "view_mcpclient"), ("doors_mcp", "mcpclient", "add_mcpclient"),
    ("doors_mcp", "mcpclient", "change_mcpclient"),
    ("doors_langgraph", "langgraphkey", "view_langgraphkey"), ("doors_langgraph", "langgraphkey", "add_langgraphkey"),
    ("doors_langgraph", "langgraphkey", "change_langgraphkey"),
]
GROUPS: dict[str, list[tuple[str, str, str]]] = {APPROVERS: APPROVER_PERMISSIONS, OPERATORS: OPERATOR_PERMISSIONS}


def groups_make(content_types: object, permissions: object, groups: object) -> None:
    """Make both groups with their permissions, given the three model classes
    (historical ones in a migration, the real ones elsewhere)."""

    def permission(app_label: str, model: str, codename: str) -> object:
        ct, _ = content_types.objects.get_or_create(app_label=app_label, model=model)  # type: ignore[attr-defined]
        name = OWN_PERMISSIONS.get((app_label, model, codename)) or f"Can {codename.split('_', 1)[0]} {model}"
        perm, _ = permissions.objects.get_or_create(  # type: ignore[attr-defined]
            content_type=ct, codename=codename, defaults={"name": name})
        return perm

    for name, wanted in GROUPS.items():
        group, _ = groups.objects.get_or_create(name=name)  # type: ignore[attr-defined]
        group.permissions.add(*[permission(*w) for w in wanted])
