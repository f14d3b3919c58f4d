"""Who answered first, in words a person reads: a staff member by name, the customer as the customer
(its answers are stored as the thread's own session), in English and pt-BR."""

from __future__ import annotations

import datetime

import pytest
from django.contrib import admin
from django.utils import translation

from approvals.admin.answers import stale_message
from threads.models import Interrupt

MOMENT = datetime.datetime(2026, 12, 1, 20, 45, tzinfo=datetime.UTC)


def lost_to(by: str) -> dict:
    return {"interrupt": {"status": "answered", "decision": "skip", "answered_by": by,
                          "answered_at": MOMENT.isoformat()}}


def answered(by: str) -> Interrupt:
    return Interrupt(id="p-1", status=Interrupt.Status.ANSWERED, decision="skip", answered_by=by, answered_at=MOMENT)


@pytest.mark.parametrize(("language", "staff", "customer"), [
    ("en", "Nothing changed: this pause was already answered “Skip” by ana (Dec. 1, 2026, 8:45 p.m.).",
     "Nothing changed: the customer already answered this pause “Skip” (Dec. 1, 2026, 8:45 p.m.)."),
    ("pt-br", "Nada mudou: esta pausa já tinha sido respondida “Pular” por ana (1 de Dezembro de 2026 às 20:45).",
     "Nada mudou: esta pausa já tinha sido respondida “Pular” pelo cliente (1 de Dezembro de 2026 às 20:45)."),
])
def test_a_stale_answer_names_who_won_in_a_sentence_of_its_language(language, staff, customer, settings):
    settings.TIME_ZONE = "UTC"
    with translation.override(language):
        assert stale_message(lost_to("ana")) == staff
        assert stale_message(lost_to("session")) == customer


@pytest.mark.parametrize(("language", "staff", "customer"), [
    ("en", "Skip by ana, Dec. 1, 2026, 8:45 p.m.", "Skip by the customer, Dec. 1, 2026, 8:45 p.m."),
    ("pt-br", "Pular por ana, 1 de Dezembro de 2026 às 20:45", "Pular pelo cliente, 1 de Dezembro de 2026 às 20:45"),
])
def test_the_queue_says_the_customer_answered_never_session(language, staff, customer, settings):
    settings.TIME_ZONE = "UTC"
    column = admin.site._registry[Interrupt].answered_column
    with translation.override(language):
        assert column(answered("ana")) == staff
        assert column(answered("session")) == customer
        assert column(answered("")) == customer
