"""Staff accounts: approvers answer pauses; operators also roll back and withdraw."""

from __future__ import annotations

import secrets
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.base_user import AbstractBaseUser
from django.contrib.auth.models import Group, Permission
from django.db import transaction

APPROVERS = "approvers"
OPERATORS = "operators"


@transaction.atomic
def staff_create(*, username: str, operator: bool = False) -> str:
    """Create (or reset) a staff account; returns its one-time password."""
    password = secrets.token_urlsafe(12)
    user, _ = get_user_model().objects.get_or_create(username=username)
    user.is_staff = True
    user.set_password(password)
    user.save()
    _roles_grant(user, operator=operator)
    return password


@transaction.atomic
def operator_local_sign_in_user(*, username: str) -> AbstractBaseUser:
    """The local operator a ``--dev-pair`` code signs in as: staff in the
    approvers and operators groups, never a superuser, with no password (it
    signs in only by pairing)."""
    user, created = get_user_model().objects.get_or_create(username=username)
    if created:
        user.set_unusable_password()
    user.is_staff = True
    user.is_superuser = False  # an account made by an older version was one
    user.save()
    _roles_grant(user, operator=True)
    return user


def _roles_grant(user: Any, *, operator: bool) -> None:
    user.groups.add(_group(APPROVERS, ["threads.view_interrupt", "threads.view_thread"]))
    if operator:
        user.groups.add(_group(OPERATORS, [
            "catalogue.view_withdrawal", "catalogue.add_withdrawal", "catalogue.change_withdrawal",
            "catalogue.delete_withdrawal", "catalogue.view_agentsetting", "catalogue.change_agentsetting",
        ]))


def _group(name: str, permissions: list[str]) -> Group:
    group, _ = Group.objects.get_or_create(name=name)
    for dotted in permissions:
        app, _, codename = dotted.partition(".")
        group.permissions.add(Permission.objects.get(content_type__app_label=app, codename=codename))
    return group
