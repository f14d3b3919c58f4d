"""Caller keys (docs/mcp.md, "Keys: who may call"; docs/langgraph.md, "Keys"): what the doors
that take keys share. An operator makes a key in the console; it is shown once, kept as its first
characters and its SHA-256, checked in constant time, and revoked, never deleted (so the console
still says who called).

A key is ``stw_`` and 43 URL-safe characters (256 random bits: no slow hash needed); the table
keeps its first 12 characters (to find the row and to show which key it is) and the SHA-256 of
the whole. A presented key is looked up by its prefix and its hash compared with
``hmac.compare_digest``; a wrong, revoked or unknown key gets the same answer, and the
``stalwart.security`` log says which. Each door has its own table (``CallerKey``'s subclasses:
the MCP gateway's ``McpClient``, the LangGraph door's ``LangGraphKey``).
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import secrets
from datetime import timedelta
from typing import Any, TypeVar

from django.db import models, transaction
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

security = logging.getLogger("stalwart.security")

KEY_PREFIX = "stw_"
SHOWN = 12  # characters of a key kept to find it (the prefix and 8 random ones)
LAST_USED_EVERY = timedelta(minutes=1)  # how fresh "last used" is kept
MAX_KEY = 200


class CallerKey(models.Model):
    """A caller allowed in by a key: its name, the key's first characters and hash, its privileges."""

    name = models.SlugField(_("name"), max_length=40, unique=True,
                            help_text=_("Letters, digits, '-' and '_': it names the client's threads."))
    key_prefix = models.CharField(_("key starts with"), max_length=12, db_index=True, editable=False)
    key_hash = models.CharField(max_length=64, editable=False)
    privileges = models.JSONField(_("privileges"), default=list, blank=True)
    created_by = models.CharField(_("created by"), max_length=150, blank=True, editable=False)
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)
    revoked_at = models.DateTimeField(_("revoked at"), null=True, blank=True, editable=False)
    last_used_at = models.DateTimeField(_("last used"), null=True, blank=True, editable=False)

    class Meta:
        abstract = True
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


K = TypeVar("K", bound=CallerKey)


def _digest(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


@transaction.atomic
def key_create(model: type[K], *, name: str, privileges: list[str] | None = None, by: str = "",
               **fields: Any) -> tuple[K, str]:
    """A new caller of ``model`` and its key, which is returned once and never stored."""
    key = KEY_PREFIX + secrets.token_urlsafe(32)
    made = model.objects.create(name=name, key_prefix=key[:SHOWN], key_hash=_digest(key),
                                privileges=sorted(set(privileges or [])), created_by=by[:150], **fields)
    return made, key


def key_revoke(caller: CallerKey) -> None:
    type(caller).objects.filter(pk=caller.pk, revoked_at__isnull=True).update(revoked_at=timezone.now())
    caller.refresh_from_db()


def keys_in_force(model: type[CallerKey]) -> int:
    """How many of ``model``'s keys are in force (with none, a door answers loopback callers only)."""
    return model.objects.filter(revoked_at__isnull=True).count()


def key_owner(model: type[K], key: str, *, door: str) -> K | None:
    """The caller whose key this is, if it is in force (``door`` names the door in the security log)."""
    if not key.startswith(KEY_PREFIX) or len(key) > MAX_KEY:
        security.warning("a %s call with a key of the wrong shape", door)
        return None
    digest = _digest(key)
    for caller in model.objects.filter(key_prefix=key[:SHOWN]):
        if hmac.compare_digest(caller.key_hash, digest):
            if caller.revoked_at is not None:
                security.warning("a %s call with the revoked key of %s", door, caller.name)
                return None
            now = timezone.now()
            if caller.last_used_at is None or now - caller.last_used_at > LAST_USED_EVERY:
                # Once a minute at most: a key's every request need not be a write.
                model.objects.filter(pk=caller.pk).update(last_used_at=now)
            return caller
    security.warning("a %s call with a key no caller has", door)
    return None
