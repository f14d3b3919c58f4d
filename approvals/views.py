"""``/pair/``: a browser signs in as local staff with a ``--dev-pair`` code.

The code is printed once by ``stalwart serve --dev-pair``, kept only as a
hash, valid for ten minutes and for one use (claimed by a conditional
UPDATE, like a pause).
"""

from __future__ import annotations

import hashlib
import logging
import secrets
from datetime import timedelta

from django.contrib.auth import get_user_model, login
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from django.views.decorators.http import require_http_methods

from approvals.models import PairingCode

security = logging.getLogger("stalwart.security")
PAIR_MINUTES = 10
LOCAL_STAFF = "local-staff"
DETAIL_BAD_CODE = _("That code is not valid (codes work once, for ten minutes).")


def _hash(code: str) -> str:
    return hashlib.sha256(code.strip().encode()).hexdigest()


def pairing_code_create() -> str:
    code = f"{secrets.randbelow(10**6):06d}"
    PairingCode.objects.create(code_hash=_hash(code), expires_at=timezone.now() + timedelta(minutes=PAIR_MINUTES))
    return code


def pairing_code_claim(code: str) -> bool:
    now = timezone.now()
    return bool(
        PairingCode.objects.filter(code_hash=_hash(code), used_at__isnull=True, expires_at__gt=now).update(used_at=now)
    )


@require_http_methods(["GET", "POST"])
def pair_view(request: HttpRequest) -> HttpResponse:
    error = ""
    if request.method == "POST":
        if pairing_code_claim(str(request.POST.get("code", ""))):
            user, _ = get_user_model().objects.get_or_create(
                username=LOCAL_STAFF, defaults={"is_staff": True, "is_superuser": True}
            )
            if not user.is_staff:
                user.is_staff = True
                user.save(update_fields=["is_staff"])
            login(request, user, backend="django.contrib.auth.backends.ModelBackend")
            return redirect("/admin/")
        security.warning("a wrong or used pairing code was entered")
        error = DETAIL_BAD_CODE
    return render(request, "approvals/pair.html", {"error": error}, status=400 if error else 200)
