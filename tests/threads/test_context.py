"""Pure tier: the Stalwart-Context token (threads.context) and its minting helper."""

from __future__ import annotations

import base64
import json

import jwt
import pytest

from stalwart_site.context import ContextArgumentError, context_mode, context_token
from threads.context import ContextTokenError, context_read, context_token_mint

SECRET = "s" * 40
NOW = 1_800_000_000


def make_token(**overrides):  # type: ignore[no-untyped-def]
    claims = {"exp": NOW + 60, "ctx": {"customer": "c-208"}, "priv": ["refunds"], "sub": "u-1"}
    claims.update(overrides)
    claims = {k: v for k, v in claims.items() if v is not ...}
    return jwt.encode(claims, SECRET, algorithm="HS256")


def test_a_minted_token_reads_back_with_its_claims():
    token = context_token_mint(SECRET, ctx={"customer": "c-208"}, priv=["refunds", "refunds"], sub="u-9",
                               ttl=60, now=NOW)
    got = context_read(token, SECRET, now=NOW + 59)
    assert dict(got.ctx) == {"customer": "c-208"} and got.priv == ("refunds",) and got.sub == "u-9"
    assert got.exp == NOW + 60


@pytest.mark.parametrize(("token", "reason"), [
    (make_token(), None),
    (jwt.encode({"exp": NOW + 60, "ctx": {}, "priv": []}, "another-secret-" * 3, algorithm="HS256"),
     "bad signature"),
    (make_token(exp=NOW), "expired"),
    (make_token(exp=...), "no exp claim"),
    (make_token(exp="soon"), "exp is not a number"),
    (make_token(ctx=["c-208"]), "ctx is not an object"),
    (make_token(ctx=None), "ctx is not an object"),
    (make_token(priv="refunds"), "priv is not a list of names"),
    (make_token(priv=None), "priv is not a list of names"),
    (make_token(priv=[1]), "priv is not a list of names"),
    (make_token(sub=7), "malformed (InvalidSubjectError)"),
    ("garbage", "malformed (DecodeError)"),
    ("", "empty"),
    (jwt.encode({"exp": NOW + 60, "ctx": {}, "priv": []}, SECRET * 2, algorithm="HS512"), "malformed (InvalidAlgorithmError)"),
])
def test_only_a_valid_hs256_token_with_the_right_claims_is_accepted(token, reason):
    if reason is None:
        assert context_read(token, SECRET, now=NOW).priv == ("refunds",)
        return
    with pytest.raises(ContextTokenError) as err:
        context_read(token, SECRET, now=NOW)
    assert err.value.reason == reason


@pytest.mark.parametrize(("claims", "ctx", "priv"), [
    ({"ctx": {"customer": "c-208"}, "priv": ...}, {"customer": "c-208"}, ()),
    ({"ctx": ..., "priv": ["refunds"]}, {}, ("refunds",)),
    ({"ctx": ..., "priv": ...}, {}, ()),
], ids=["no-priv", "no-ctx", "exp-only"])
def test_an_absent_ctx_or_priv_reads_as_empty(claims, ctx, priv):
    # The twins, present with the wrong shape (priv "refunds", ctx null), are refused in the table above.
    got = context_read(make_token(sub=..., **claims), SECRET, now=NOW)
    assert (dict(got.ctx), got.priv) == (ctx, priv)


def test_an_unsigned_alg_none_token_is_refused():
    def part(obj):  # type: ignore[no-untyped-def]
        return base64.urlsafe_b64encode(json.dumps(obj).encode()).rstrip(b"=").decode()

    token = f"{part({'alg': 'none', 'typ': 'JWT'})}.{part({'exp': NOW + 60, 'ctx': {}, 'priv': ['refunds']})}."
    with pytest.raises(ContextTokenError):
        context_read(token, SECRET, now=NOW)


def test_leeway_forgives_a_few_seconds_of_clock_difference():
    token = make_token(exp=NOW - 3)
    assert context_read(token, SECRET, now=NOW, leeway=5).sub == "u-1"
    with pytest.raises(ContextTokenError):
        context_read(token, SECRET, now=NOW, leeway=2)


def test_the_helper_takes_name_value_pairs_or_json_and_the_secret_from_the_environment(monkeypatch):
    monkeypatch.setenv("STALWART_CONTEXT_SECRET", SECRET)
    token = context_token(ctx=["customer=c-208", '{"tier": 2}'], priv=["refunds"], now=NOW)
    got = context_read(token, SECRET, now=NOW)
    assert dict(got.ctx) == {"customer": "c-208", "tier": 2}
    with pytest.raises(ContextArgumentError):
        context_token(ctx=["no-equals-sign"])
    monkeypatch.delenv("STALWART_CONTEXT_SECRET")
    with pytest.raises(ContextArgumentError):
        context_token(ctx={"customer": "c-208"})


def test_serve_says_whether_context_is_signed(monkeypatch):
    monkeypatch.delenv("STALWART_CONTEXT_SECRET", raising=False)
    assert "UNSIGNED" in context_mode()
    monkeypatch.setenv("STALWART_CONTEXT_SECRET", SECRET)
    assert context_mode().startswith("Context: signed only")


def test_the_cli_prints_a_token_the_server_accepts(capsys, monkeypatch):
    from stalwart_site.cli import main

    monkeypatch.setenv("STALWART_CONTEXT_SECRET", SECRET)
    assert main(["context-token", "--ctx", "customer=c-208", "--priv", "refunds", "--ttl", "60"]) == 0
    token = capsys.readouterr().out.strip()
    got = context_read(token, SECRET)
    assert dict(got.ctx) == {"customer": "c-208"} and got.priv == ("refunds",)
    monkeypatch.delenv("STALWART_CONTEXT_SECRET")
    assert main(["context-token", "--ctx", "customer=c-208"]) == 2
    assert "STALWART_CONTEXT_SECRET" in capsys.readouterr().err


@pytest.mark.parametrize(("secret", "minted"), [("s" * 31, False), ("s" * 32, True)])
def test_the_cli_mints_no_token_under_a_secret_no_server_would_take(capsys, secret, minted):
    # A server refuses to start with a context secret under 32 bytes (issue 26),
    # so a token minted with one would never be accepted: the CLI says so instead.
    from stalwart_site.cli import main

    assert main(["context-token", "--secret", secret, "--ctx", "customer=c-208"]) == (0 if minted else 2)
    out = capsys.readouterr()
    assert bool(out.out.strip()) is minted
    assert ("under 32" in out.err) is not minted
