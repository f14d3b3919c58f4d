"""Thread keys: a thread is the client's id within one session (pure).

A client names its threads (``u-17``); the name alone would let the first
session to use it own it, and let any other probe whether it exists. The
stored key combines the name with the session that opened it, so the same
name from another session is another thread, and no one can squat or probe
one. Session-facing routes take the name and find the key with the session;
staff, signed channels and webhooks name a thread by its key.
"""

from __future__ import annotations

import hashlib
import re

SEPARATOR = "~"
NAME_RE = re.compile(r"^[A-Za-z0-9_.:-]{1,128}$")
KEY_RE = re.compile(r"^[A-Za-z0-9_.:-]{1,128}(~[0-9a-f]{16})?$")


def thread_key(name: str, session_hash: str) -> str:
    """The stored key of the thread ``name`` in the session whose hash is ``session_hash``."""
    digest = hashlib.sha256(f"{session_hash}\0{name}".encode()).hexdigest()[:16]
    return f"{name}{SEPARATOR}{digest}"


def thread_name(key: str) -> str:
    """The client's name of a thread from its stored key (a key made before keys is its own name)."""
    return key.split(SEPARATOR, 1)[0]
