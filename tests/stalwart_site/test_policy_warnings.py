"""``stalwart serve`` warns of a staff group an approval policy names that nobody can approve for
(docs/policies.md, "Checking a file")."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Group, User

from catalogue.agentfile import load_agent_file
from stalwart_site.checks import policy_warnings
from tests.support.server import SHOP

pytestmark = pytest.mark.django_db


def shop():  # type: ignore[no-untyped-def]
    return load_agent_file(SHOP).agent()


def test_the_shop_warns_that_finance_does_not_exist_and_says_how_to_fill_it():
    assert policy_warnings(shop()) == [
        "stalwart: warning: policy 'big-charges' names the staff group 'finance', which does not exist: nobody can "
        "approve its calls until it has members (stalwart createstaff NAME --group finance)"]


def test_a_group_with_fewer_active_staff_than_the_quorum_is_warned_of_too():
    group = Group.objects.create(name="finance")
    User.objects.create_user("gone", is_staff=True, is_active=False).groups.add(group)
    User.objects.create_user("ana", is_staff=True).groups.add(group)
    assert policy_warnings(shop()) == [
        "stalwart: warning: policy 'big-charges' needs 2 approvers from the staff group 'finance', which has 1 active "
        "staff: its calls cannot be approved until it has more (stalwart createstaff NAME --group finance)"]


def test_once_two_active_staff_are_in_finance_nothing_is_warned():
    group = Group.objects.create(name="finance")
    for name in ("ana", "bruno"):
        User.objects.create_user(name, is_staff=True).groups.add(group)
    assert policy_warnings(shop()) == []
