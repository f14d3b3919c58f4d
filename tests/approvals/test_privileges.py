"""Service tier: staff privileges come from Django permissions named privilege_<name>."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Permission, User
from django.contrib.contenttypes.models import ContentType

from approvals.privileges import staff_privileges
from threads.models import Run

pytestmark = pytest.mark.django_db


def make_privilege(name: str) -> Permission:
    ct = ContentType.objects.get_for_model(Run)
    return Permission.objects.create(codename=f"privilege_{name}", name=f"Can use {name}", content_type=ct)


def make_staff(**overrides) -> User:  # type: ignore[no-untyped-def]
    fields = {"username": "ana", "is_staff": True, "is_active": True, **overrides}
    return User.objects.create(**fields)


def test_a_staff_member_holds_the_privileges_their_permissions_name():
    make_privilege("reports")
    user = make_staff()
    user.user_permissions.add(make_privilege("refunds"))
    user.user_permissions.add(Permission.objects.get(codename="view_run"))
    assert staff_privileges(User.objects.get(pk=user.pk)) == ["refunds"]


def test_an_inactive_or_non_staff_user_holds_none():
    user = make_staff(is_active=False)
    user.user_permissions.add(make_privilege("refunds"))
    assert staff_privileges(User.objects.get(pk=user.pk)) == []
    other = make_staff(username="bo", is_staff=False)
    assert staff_privileges(other) == []


def test_a_superuser_holds_every_privilege_defined():
    make_privilege("refunds")
    make_privilege("reports")
    assert staff_privileges(make_staff(is_superuser=True)) == ["refunds", "reports"]
