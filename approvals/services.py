"""Staff accounts: approvers answer pauses; operators also roll back and withdraw.

The two groups are made by a data migration (``0003_staff_groups``); an
account is put in exactly one of them. Its password is one-time: the console
asks for a new one before anything else (``OneTimePassword``).
"""

from __future__ import annotations

import secrets

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group, Permission
from django.contrib.contenttypes.models import ContentType
from django.db import transaction

from approvals.groups import APPROVERS, OPERATORS, groups_make
from approvals.models import OneTimePassword

__all__ = ["APPROVERS", "OPERATORS", "password_must_change", "staff_create", "staff_database"]


@transaction.atomic
def staff_create(*, username: str, operator: bool = False) -> str:
    """Create (or reset) a staff account; returns its one-time password."""
    password = secrets.token_urlsafe(12)
    user, _ = get_user_model().objects.get_or_create(username=username)
    user.is_staff = True
    user.set_password(password)
    user.save()
    wanted = OPERATORS if operator else APPROVERS
    if not Group.objects.filter(name=wanted).exists():  # a flushed test database; the migration made them
        groups_make(ContentType, Permission, Group)
    user.groups.remove(*Group.objects.filter(name__in=[APPROVERS, OPERATORS]).exclude(name=wanted))
    user.groups.add(Group.objects.get(name=wanted))
    OneTimePassword.objects.update_or_create(user=user, defaults={"password_hash": user.password})
    return password


def password_must_change(user: object) -> bool:
    """True while the account still has the one-time password it was given."""
    if not getattr(user, "is_authenticated", False):
        return False
    given = OneTimePassword.objects.filter(user_id=user.pk).values_list("password_hash", flat=True).first()
    return given is not None and given == user.password  # type: ignore[attr-defined]


def staff_database() -> str:
    """Where staff accounts are written, in words (never the password)."""
    from django.db import connection

    db = connection.settings_dict
    if connection.vendor == "sqlite":
        return f"SQLite {db['NAME']}"
    return f"{connection.vendor} {db.get('NAME')} on {db.get('HOST') or 'localhost'}:{db.get('PORT') or ''}".rstrip(":")
