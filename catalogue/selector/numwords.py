"""Numbers written as words, English and pt-BR: "forty", "two hundred and
fifty", "quarenta", "duzentos e cinquenta", "cento e vinte".

A run of number words becomes one number token (``spelled``), which only a
number argument may take ("show order forty" never makes an identifier "40").
The parts are read as people say them: units and tens add up ("twenty five",
"forty-two", "vinte e cinco"), "hundred" multiplies what came before
("two hundred"), "thousand"/"mil" closes a group ("dois mil e vinte"), and
"and"/"e" joins only a smaller part to a larger one ("duzentos e cinquenta";
"dois e três" stays two numbers and a conjunction). "one", "um" and "uma" are
articles and pronouns far more often than counts: alone they stay words, and
they start a number only before "hundred"/"thousand"/"mil".
"""

from __future__ import annotations

from decimal import Decimal

_EN_SMALL = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13,
    "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18,
    "nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60,
    "seventy": 70, "eighty": 80, "ninety": 90,
}
# Folded (no accents), as the tokenizer's ``norm`` is.
_PT_SMALL = {
    "zero": 0, "um": 1, "uma": 1, "dois": 2, "duas": 2, "tres": 3, "quatro": 4, "cinco": 5,
    "seis": 6, "sete": 7, "oito": 8, "nove": 9, "dez": 10, "onze": 11, "doze": 12,
    "treze": 13, "catorze": 14, "quatorze": 14, "quinze": 15, "dezesseis": 16,
    "dezasseis": 16, "dezessete": 17, "dezoito": 18, "dezenove": 19, "vinte": 20,
    "trinta": 30, "quarenta": 40, "cinquenta": 50, "sessenta": 60, "setenta": 70,
    "oitenta": 80, "noventa": 90, "cem": 100, "cento": 100, "duzentos": 200, "duzentas": 200,
    "trezentos": 300, "trezentas": 300, "quatrocentos": 400, "quatrocentas": 400,
    "quinhentos": 500, "quinhentas": 500, "seiscentos": 600, "seiscentas": 600,
    "setecentos": 700, "setecentas": 700, "oitocentos": 800, "oitocentas": 800,
    "novecentos": 900, "novecentas": 900,
}
_SMALL = {"en": _EN_SMALL, "pt-BR": _PT_SMALL}
_HUNDRED = {"en": frozenset({"hundred"}), "pt-BR": frozenset()}
_THOUSAND = {"en": frozenset({"thousand"}), "pt-BR": frozenset({"mil"})}
_JOINERS = {"en": frozenset({"and"}), "pt-BR": frozenset({"e"})}
_ALONE_NEVER = frozenset({"one", "um", "uma"})


def is_number_word(word: str, language: str) -> bool:
    return word in _SMALL.get(language, {}) or word in _HUNDRED.get(language, ()) \
        or word in _THOUSAND.get(language, ())


def _parts(word: str, language: str) -> list[str]:
    """"forty-two" -> ["forty", "two"]; other words as they are."""
    if "-" in word and all(p in _SMALL.get(language, {}) for p in word.split("-")):
        return word.split("-")
    return [word]


def read_number(words: list[str], language: str) -> tuple[int, Decimal] | None:
    """The number that ``words`` (folded) start with: (words used, value), or
    None when they start with none."""
    small = _SMALL.get(language)
    if small is None:
        return None
    hundred, thousand, joiners = _HUNDRED[language], _THOUSAND[language], _JOINERS[language]
    total = current = 0
    slot: int | None = None  # a part that follows must be smaller than this
    used = i = 0
    while i < len(words):
        step, word = 1, words[i]
        if used and word in joiners and i + 1 < len(words):
            step, word = 2, words[i + 1]
        state = (total, current, slot)
        for part in _parts(word, language):
            if part in hundred and 0 < current < 10:
                current, slot = current * 100, 100  # "two hundred"
            elif part in thousand and (used or part == "mil"):
                total, current, slot = total + (current or 1) * 1000, 0, 1000
            elif part in small and (slot is None or small[part] < slot):
                value = small[part]
                current += value
                slot = 100 if value % 100 == 0 else 10 if value >= 20 and value % 10 == 0 else 1
            else:
                slot = -1
                break
        if slot == -1:
            total, current, slot = state
            break
        used, i = i + step, i + step
    if used == 0 or (used == 1 and words[0] in _ALONE_NEVER):
        return None  # "one", "um", "uma" alone: an article or a pronoun
    return used, Decimal(total + current)
