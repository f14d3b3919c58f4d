"""A ledger whose writes misbehave on request, to arrange each verdict's evidence (docs/http-api.md,
"Receipts and verdicts").

``MODE`` says what ``post_entry`` does next: ``ok`` (one entry, a reply),
``lose`` (one entry, the reply lost), ``lose_before`` (no entry, the reply
lost), ``phantom`` (no entry, a reply that says ok), ``double`` (two entries,
a reply).
"""

from __future__ import annotations

from typing import Any

ENTRIES: list[dict[str, Any]] = []
MODE = {"post_entry": "ok"}


def post_entry(ref: str, token: str = "") -> dict[str, Any]:
    """Post an entry to the ledger."""
    mode = MODE["post_entry"]
    if mode in ("ok", "lose"):
        ENTRIES.append({"ref": ref})
    if mode == "double":
        ENTRIES.extend([{"ref": ref}, {"ref": ref}])
    if mode in ("lose", "lose_before"):
        raise TimeoutError("the ledger's reply was lost")
    return {"ref": ref, "posted": True}


def list_entries(ref: str) -> dict[str, Any]:
    """List the ledger's entries for a reference."""
    return {"entries": [e for e in ENTRIES if e["ref"] == ref]}
