"""How strong a secret or token must be before anything starts (issue 26), pure.

A secret that signs (``SECRET_KEY``, the context, webhook and resume secrets)
is an HMAC key: anyone holding one signed value (a context token, a webhook
delivery, a signed resume) can try keys offline as fast as a machine hashes,
so a short one falls in minutes. 32 bytes is SHA-256's own size, past any
search. The operator token is only ever compared online, against the rate
limit on wrong bearers, so 24 random characters (about 140 bits from
``token_urlsafe``) are far past guessing.

``stalwart_site.bootstrap.refuse_unsafe`` applies these at start; the
webhook and context helpers apply them where a secret is handed over in code.
"""

from __future__ import annotations

MIN_SECRET_BYTES = 32
MIN_TOKEN_CHARACTERS = 24
# A command that prints a value long enough for either.
MAKE_ONE = "python3 -c 'import secrets; print(secrets.token_urlsafe(32))'"
