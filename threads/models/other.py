"""What the run store keeps besides runs: a thumb on a reply (``Feedback``) and
the wrong tries at a secret (``WrongGuess``, counted by ``threads.limits``)."""

from __future__ import annotations

from django.db import models
from django.utils.translation import gettext_lazy as _

from threads.models.runs import Message, Thread


class Feedback(models.Model):
    """A thumb on one assistant reply, from the session that was shown it; one per reply."""

    class Thumb(models.TextChoices):
        UP = "up", _("up")
        DOWN = "down", _("down")

    message = models.OneToOneField(Message, on_delete=models.CASCADE, related_name="feedback")
    thread = models.ForeignKey(Thread, on_delete=models.CASCADE, related_name="feedback")
    agent = models.CharField(_("agent"), max_length=200, db_index=True)
    thumb = models.CharField(_("thumb"), max_length=4, choices=Thumb.choices)
    comment = models.TextField(_("comment"), blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-updated_at"]
        verbose_name = _("feedback")
        verbose_name_plural = _("feedback")

    def __str__(self) -> str:
        return f"{self.thumb} on {self.message_id}"


class WrongGuess(models.Model):
    """One wrong try at a secret (``scope``: the operator's bearer, a pairing
    code) from one client address, counted by ``threads.limits`` so every
    worker sees the same count."""

    scope = models.CharField(max_length=16)
    client = models.CharField(max_length=64)
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        indexes = [models.Index(fields=["scope", "client", "created_at"], name="wrong_guess_by_client")]

    def __str__(self) -> str:
        return f"wrong {self.scope} from {self.client} at {self.created_at:%H:%M:%S}"
