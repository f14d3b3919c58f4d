"""Privileges of staff in the console (the check's ``privilege:<name>``;
docs/operating.md, "Signed context tokens").

A signed ``Stalwart-Context`` carries a person's privileges as ``priv``; a
staff member brings theirs from Django permissions: every permission whose
codename is ``privilege_<name>`` (in any app) grants ``<name>``, and an
active superuser holds every privilege those permissions name.

Hook for the admin (issue 9): when the console starts or re-checks a call on
a staff member's behalf, pass ``staff_privileges(request.user)`` as the
run's ``privileges`` (``turn_submit(privileges=...)``). Create a privilege
with a data migration or the admin's permission page, e.g. codename
``privilege_refunds``, name "Can use tools that need the refunds privilege".
"""

from __future__ import annotations

from typing import Any

PREFIX = "privilege_"


def staff_privileges(user: Any) -> list[str]:
    """The privilege names ``user``'s permissions grant, sorted; none for anyone inactive."""
    if user is None or not getattr(user, "is_active", False) or not getattr(user, "is_staff", False):
        return []
    names = set()
    for perm in user.get_all_permissions():  # "app_label.codename"; superusers get every permission row
        codename = perm.split(".", 1)[-1]
        if codename.startswith(PREFIX) and len(codename) > len(PREFIX):
            names.add(codename[len(PREFIX):])
    return sorted(names)
