"""Staff accounts: approvers answer pauses; operators also roll back and withdraw.

The two groups are made by a data migration (``0003_staff_groups``); an
account is put in exactly one of them. Its password is one-time: the console
asks for a new one before anything else (``OneTimePassword``).
"""

from __future__ import annotations

import secrets
from collections.abc import Iterable, Sequence
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.base_user import AbstractBaseUser
from django.contrib.auth.models import Group, Permission
from django.contrib.contenttypes.models import ContentType
from django.db import transaction

from approvals.groups import APPROVERS, OPERATORS, groups_make
from approvals.models import OneTimePassword

__all__ = ["APPROVERS", "OPERATORS", "password_must_change", "staff_create", "staff_database"]


@transaction.atomic
def staff_create(*, username: str, operator: bool = False, groups: Sequence[str] = ()) -> str:
    """Create (or reset) a staff account; returns its one-time password. ``groups``: staff groups an
    approval policy may name (docs/policies.md), made when missing; the account joins them."""
    password = secrets.token_urlsafe(12)
    user, _ = get_user_model().objects.get_or_create(username=username)
    user.is_staff = True
    user.set_password(password)
    user.save()
    _role_grant(user, operator=operator)
    for name in groups:
        user.groups.add(Group.objects.get_or_create(name=name)[0])
    OneTimePassword.objects.update_or_create(user=user, defaults={"password_hash": user.password})
    return password


@transaction.atomic
def operator_local_sign_in_user(*, username: str) -> AbstractBaseUser:
    """The local operator a ``--dev-pair`` code signs in as: staff in the
    operators group, never a superuser, with no password (it signs in only by
    pairing, so it has no one-time password to change)."""
    user, created = get_user_model().objects.get_or_create(username=username)
    if created:
        user.set_unusable_password()
    user.is_staff = True
    user.is_superuser = False  # an account made by an older version was one
    user.save()
    _role_grant(user, operator=True)
    return user


def _role_grant(user: Any, *, operator: bool) -> None:
    """Exactly one of the two groups (operators have every approver's permission too)."""
    wanted = OPERATORS if operator else APPROVERS
    if not Group.objects.filter(name=wanted).exists():  # a flushed test database; the migration made them
        groups_make(ContentType, Permission, Group)
    user.groups.remove(*Group.objects.filter(name__in=[APPROVERS, OPERATORS]).exclude(name=wanted))
    user.groups.add(Group.objects.get(name=wanted))


def group_members(names: Iterable[str]) -> dict[str, int | None]:
    """Of the staff groups ``names`` (an agent's policies'), how many active staff each has (None: no such
    group), for ``stalwart serve``'s warnings (docs/policies.md)."""
    found: dict[str, int | None] = {}
    for name in dict.fromkeys(names):
        group = Group.objects.filter(name=name).first()
        found[name] = None if group is None else group.user_set.filter(is_active=True, is_staff=True).count()
    return found


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
