"""``stalwart serve`` warns of a staff group an approval policy names that nobody can approve for
(docs/policies.md, "Checking a file")."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Group, User

from catalogue.agentfile import load_agent_file
from stalwart_site.cli import policy_warnings
from tests.support.server import SHOP

pytestmark = pytest.mark.django_db


def shop():  # type: ignore[no-untyped-def]
    return load_agent_file(SHOP).agent()


def test_the_shop_warns_that_finance_does_not_exist_and_says_how_to_fill_it():
    assert policy_warnings(shop()) == [
        "stalwart: warning: policy 'big-charges' names the staff group 'finance', which does not exist: nobody can "
        "approve its calls until it has members (stalwart createstaff NAME --group finance)"]


def test_an_empty_group_or_one_of_inactive_staff_is_warned_of_too():
    group = Group.objects.create(name="finance")
    User.objects.create_user("gone", is_staff=True, is_active=False).groups.add(group)
    assert "which has no active staff" in policy_warnings(shop())[0]


def test_once_an_active_staff_member_is_in_finance_nothing_is_warned():
    group = Group.objects.create(name="finance")
    User.objects.create_user("ana", is_staff=True).groups.add(group)
    assert policy_warnings(shop()) == []
