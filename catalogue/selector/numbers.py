"""Numbers as people type them, in both notations.

``40``, ``40.50``, ``40,50``, ``1,234.50`` and ``1.234,50`` are all read.
When both separators appear, the last one is the decimal mark. When only one
kind appears more than once, it groups thousands. A single separator followed
by exactly three digits is the ambiguous case ("1,234" / "1.234"); it is read
by the turn's language: English groups thousands with a comma, Portuguese with
a dot. Anything else is a decimal mark.

Values take the schema's type: ``number`` gives ``int`` when integral (``40``)
and ``float`` otherwise (``40.5``); ``integer`` refuses a fraction; a
``string`` keeps the text as typed ("4411").
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation
from typing import Any

NUMBER_PATTERN = r"\d{1,3}(?:[.,]\d{3})+(?:[.,]\d+)?|\d+(?:[.,]\d+)?"
_FULL = re.compile(rf"(?:{NUMBER_PATTERN})\Z")

# Beyond this many digits a "number" is an identifier, never an amount.
MAX_DIGITS = 30


def parse_number(raw: str, language: str) -> Decimal | None:
    """The value of a typed number, or None when it is not one."""
    text = raw.strip()
    if not text or len(text) > MAX_DIGITS + 10 or not _FULL.match(text):
        return None
    dots, commas = text.count("."), text.count(",")
    if dots and commas:
        decimal_mark = "." if text.rfind(".") > text.rfind(",") else ","
    elif dots + commas == 0:
        decimal_mark = ""
    else:
        mark = "." if dots else ","
        count = dots or commas
        after = text.rsplit(mark, 1)[1]
        if count > 1:
            decimal_mark = ""  # "1.234.567": grouping only
        elif len(after) == 3:
            grouping = "," if language == "en" else "."
            decimal_mark = "" if mark == grouping else mark
        else:
            decimal_mark = mark
    if decimal_mark:
        whole, _, fraction = text.rpartition(decimal_mark)
        whole = whole.replace(".", "").replace(",", "")
        if not fraction.isdigit():
            return None
        canonical = f"{whole}.{fraction}"
    else:
        canonical = text.replace(".", "").replace(",", "")
    try:
        return Decimal(canonical)
    except InvalidOperation:
        return None


def typed_value(raw: str, number: Decimal | None, schema_type: Any) -> tuple[bool, Any]:
    """``raw`` converted to the schema's type: (fits, value)."""
    kinds = schema_type if isinstance(schema_type, list) else [schema_type]
    if "number" in kinds and number is not None:
        return True, _plain(number)
    if "integer" in kinds and number is not None:
        if number == number.to_integral_value():
            return True, int(number)
        return False, None
    if "string" in kinds or not any(k in kinds for k in ("number", "integer", "boolean")):
        return True, raw
    return False, None


def _plain(number: Decimal) -> int | float:
    if number == number.to_integral_value():
        return int(number)
    return float(number)
