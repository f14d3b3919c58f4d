"""LangGraph keys in the console (docs/langgraph.md, "Keys"): an operator makes a caller's
``x-api-key`` (shown once), says what it may do, and revokes it (``doors.keyadmin``)."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin
from django.utils.translation import gettext_lazy as _

from doors.keyadmin import CallerKeyAdmin
from doors.langgraph.models import LangGraphKey

PRIVILEGE_CHOICES = [("run", _("run: start runs of the graph")),
                     ("answer", _("answer: resume what the graph waits on"))]


class LangGraphKeyForm(forms.ModelForm):  # type: ignore[type-arg]
    may = forms.MultipleChoiceField(label=_("It may"), choices=PRIVILEGE_CHOICES, initial=["run", "answer"],
                                    required=False, widget=forms.CheckboxSelectMultiple,
                                    help_text=_("Reading threads and their interrupts needs neither."))

    class Meta:
        model = LangGraphKey
        fields = ["name"]
        help_texts = {"name": _("Letters, digits, '-' and '_': the console names who answered by it.")}


@admin.register(LangGraphKey)
class LangGraphKeyAdmin(CallerKeyAdmin):
    form = LangGraphKeyForm
    create_fields = ["name", "may"]

    def privileges_of(self, form: Any) -> list[str]:
        return list(form.cleaned_data["may"])
