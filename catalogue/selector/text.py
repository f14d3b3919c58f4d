"""Turning a turn's text into tokens, whatever it holds.

Text is NFKC-normalised and stripped of control and invisible characters;
what no pattern reads (emoji, symbols) is skipped. Tokens, in the order the
patterns are tried:

- ``quote``: text in double or curly quotes, kept as typed;
- ``email``: an e-mail address;
- ``money``: a number after a currency sign (``$40``, ``R$ 40,00``);
- ``id``: letters and digits together (``c-208``, ``l-9``, ``ORD7``);
- ``num``: digits with optional separators (``4411``, ``1.234,50``);
- ``word``: letters, with inner apostrophes or hyphens (``i'd``, ``e-mail``);
- ``sep``: ``, ; . ! ?`` (a place where a turn may change call).

Word tokens carry ``norm``: lower case with accents folded, the form every
lexicon lookup uses. Then, over the tokens:

- a run of number words ("two hundred and fifty", "duzentos e cinquenta") is
  one ``num`` token marked ``spelled`` (``numwords``), and a currency sign
  before it makes it ``money`` ("R$ quarenta");
- text after a colon that ends the turn ("flag prescription RX-3001: patient
  is allergic to penicillin") is one ``text`` token, kept as typed: free text
  for a note, a comment, a reason.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from decimal import Decimal

from catalogue.selector.lexicon_pt import fold
from catalogue.selector.numbers import NUMBER_PATTERN, parse_number
from catalogue.selector.numwords import is_number_word, read_number

# A turn longer than this is cut before reading; every part of reading is
# linear in it, so the cap only bounds work, never changes what short turns mean.
MAX_CHARS = 4000

_INVISIBLE = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff]")
_SPACE = re.compile(r"[\t\n\r]")
# "nº 4411", "n.º 4411", "n° 4411", "no. 4411": a number sign, read as "#" (NFKC
# would turn "º" into a plain "o", and "no" is a Portuguese preposition).
_NUMBER_SIGN = re.compile(r"\b[Nn]\.?\s?[º°]\.?\s*(?=#?\d)|\b[Nn][Oo]\.\s*(?=#?\d)")
# "p-3's phone": the possessive of an identifier is the identifier.
_ID_POSSESSIVE = re.compile(r"(?<=\d)['’]s\b")

_TOKEN = re.compile(
    r"""
    (?P<quote>"(?P<q1>[^"]+)"|“(?P<q2>[^”]+)”|«(?P<q3>[^»]+)»)
  | (?P<email>[A-Za-z0-9._%+\-]+@[A-Za-z0-9\-]+(?:\.[A-Za-z0-9\-]+)+)
  | (?P<money>(?:R\$|US\$|\$|€|£)\s?(?P<amount>""" + NUMBER_PATTERN + r"""))
  | (?P<id>\#?(?=[\w\-]*\d)(?=[\w\-]*[^\W\d_])[^\W_]+(?:-[^\W_]+)+(?![\w])
          |\#?\d+(?:[-/]\d+)+(?![\w])
          |\#?(?=[^\W_]*\d)(?=[^\W_]*[^\W\d_])[^\W_]+)
  | (?P<num>\#?(?:""" + NUMBER_PATTERN + r"""))(?![\w])
  | (?P<cur>R\$|US\$|\$|€|£)
  | (?P<word>[^\W\d_]+(?:['\-][^\W\d_]+)*)
  | (?P<sep>[,;.!?:])
    """,
    re.VERBOSE,
)


# ": " then text to the end of the turn, unless that text is one quoted string.
_COLON_TEXT = re.compile(r":\s+(?P<rest>\S.*)\Z", re.DOTALL)
_ONE_QUOTE = re.compile(r'\s*(?:"[^"]*"|“[^”]*”|«[^»]*»)\s*[.!]?\s*\Z')


@dataclass(frozen=True)
class Token:
    kind: str  # quote | email | money | id | num | word | sep | text | cur
    text: str  # as typed (quotes without their marks, ids without "#")
    norm: str = ""  # word tokens: lower case, accents folded
    number: Decimal | None = None
    spelled: bool = False  # a number written as words ("forty")


def clean(text: str) -> str:
    """The turn as read: normalised, invisible characters removed, capped."""
    text = _NUMBER_SIGN.sub("#", text[: MAX_CHARS * 2])
    text = _ID_POSSESSIVE.sub("", text)
    text = unicodedata.normalize("NFKC", text)
    text = _SPACE.sub(" ", text)
    text = _INVISIBLE.sub("", text)
    return text.replace("’", "'").replace("‘", "'")[:MAX_CHARS]


def tokenize(text: str, language: str) -> list[Token]:
    cleaned = clean(text)
    colon = _COLON_TEXT.search(cleaned)
    if colon is not None and not _ONE_QUOTE.match(colon.group("rest")) \
            and not _inside_quotes(cleaned, colon.start()):
        head = _tokens(cleaned[: colon.start()], language)
        return [*head, Token("text", colon.group("rest").strip())]
    return _tokens(cleaned, language)


def _inside_quotes(text: str, at: int) -> bool:
    """Whether position ``at`` lies within quoted text ("note: dose high")."""
    before = text[:at]
    return before.count('"') % 2 == 1 or before.count("“") > before.count("”") \
        or before.count("«") > before.count("»")


def _tokens(cleaned: str, language: str) -> list[Token]:
    tokens: list[Token] = []
    for match in _TOKEN.finditer(cleaned):
        kind = match.lastgroup
        if kind in ("q1", "q2", "q3", "amount"):  # inner groups never end a match
            kind = None
        if match.group("quote") is not None:
            inner = match.group("q1") or match.group("q2") or match.group("q3") or ""
            if inner.strip():
                tokens.append(Token("quote", inner.strip()))
        elif match.group("email") is not None:
            tokens.append(Token("email", match.group("email")))
        elif match.group("money") is not None:
            raw = match.group("amount")
            tokens.append(Token("money", raw, number=parse_number(raw, language)))
        elif match.group("id") is not None:
            raw = match.group("id").lstrip("#")
            tokens.append(Token("id", raw, norm=fold(raw)))
        elif match.group("num") is not None:
            raw = match.group("num").lstrip("#")
            number = parse_number(raw, language)
            if number is None:
                tokens.append(Token("id", raw, norm=raw))
            else:
                tokens.append(Token("num", raw, number=number))
        elif match.group("word") is not None:
            raw = match.group("word")
            tokens.append(Token("word", raw, norm=fold(raw)))
        elif match.group("sep") is not None:
            tokens.append(Token("sep", match.group("sep")))
        elif match.group("cur") is not None:
            tokens.append(Token("cur", match.group("cur")))
    return _spelled_numbers(tokens, language)


def _spelled_numbers(tokens: list[Token], language: str) -> list[Token]:
    """Runs of number words as one number; a currency sign before one, money.
    A currency sign before nothing a number is dropped, as symbols are."""
    out: list[Token] = []
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        if tok.kind == "word" and is_number_word(tok.norm.split("-")[0], language):
            words = [t.norm if t.kind == "word" else "" for t in tokens[i : i + 12]]
            words = words[: words.index("")] if "" in words else words
            read = read_number(words, language)
            if read is not None:
                used, value = read
                raw = " ".join(t.text for t in tokens[i : i + used])
                money = bool(out) and out[-1].kind == "cur"
                if money:
                    out.pop()
                out.append(Token("money" if money else "num", raw, number=value, spelled=True))
                i += used
                continue
        out.append(tok)
        i += 1
    return [t for t in out if t.kind != "cur"]
