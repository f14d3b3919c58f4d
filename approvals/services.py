"""Staff accounts: approvers answer pauses; operators also roll back and withdraw."""

from __future__ import annotations

import secrets

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
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
    user.groups.add(Group.objects.get_or_create(name=APPROVERS)[0])
    if operator:
        user.groups.add(Group.objects.get_or_create(name=OPERATORS)[0])
    return password
