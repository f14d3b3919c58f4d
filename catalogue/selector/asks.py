"""Questions for what a plan leaves open (docs/http-api.md, "Questions (ask)"), in the plan's language.

A missing argument is asked by its words: ``order_id`` -> "Which order?" /
"Qual pedido?"; a number -> "What amount?" / "Qual valor?", or "How many
days?" / "Quantos dias?" for a plural count. An enum of at most four values
is a choice between them; otherwise the question is open. Portuguese words
come from the vocabulary and the built-in nouns, read backwards (English term
-> the shortest Portuguese word for it); a term with none keeps its English.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from catalogue.selector import lexicon_pt as pt
from catalogue.selector.index import ArgInfo
from catalogue.words import name_words

MAX_CHOICES = 4
TOOL_CHOICE_PROMPT = {"en": "Which of these do you mean?", "pt-BR": "Qual destas você quer dizer?"}


def portuguese_words(vocabulary_pt: Mapping[str, str]) -> dict[str, str]:
    """English term -> a Portuguese word for it (the shortest; ties by spelling)."""
    out: dict[str, str] = {}
    pairs = [(k, v) for k, v in pt.NOUNS.items()] + [(k, pt.fold(v)) for k, v in vocabulary_pt.items()]
    for word, term in sorted(pairs, key=lambda kv: (len(kv[0]), kv[0])):
        if word[-2:] in ("ar", "er", "ir") and " " not in word:
            continue  # a verb, never a thing to ask about
        out.setdefault(term, word)
    return out


def question(arg: ArgInfo, language: str, words_pt: Mapping[str, str]) -> dict[str, Any]:
    raw = [w for w in name_words(arg.name) if w != "id"] or name_words(arg.name)
    numeric = arg.type in ("number", "integer")
    plural = bool(raw) and raw[-1].endswith("s") and not raw[-1].endswith("ss")
    if language == "pt-BR":
        phrase = " ".join(words_pt.get(w, words_pt.get(w.rstrip("s"), w)) for w in raw)
        if numeric and plural:
            phrase = " ".join(words_pt.get(w.rstrip("s"), w) for w in raw)
            prompt = f"Quantos {phrase}s?" if not phrase.endswith("s") else f"Quantos {phrase}?"
        else:
            prompt = f"Qual {phrase}?"
    else:
        phrase = " ".join(raw)
        if numeric and plural:
            prompt = f"How many {phrase}?"
        elif numeric:
            prompt = f"What {phrase}?"
        else:
            prompt = f"Which {phrase}?"
    if arg.enum and len(arg.enum) <= MAX_CHOICES and all(str(v).strip() for v in arg.enum):
        return {"kind": "choice", "prompt": prompt, "choices": [str(v) for v in arg.enum]}
    return {"kind": "open", "prompt": prompt}


def tool_question(names: list[str], language: str) -> dict[str, Any]:
    return {"kind": "choice", "prompt": TOOL_CHOICE_PROMPT.get(language, TOOL_CHOICE_PROMPT["en"]),
            "choices": list(names)}
