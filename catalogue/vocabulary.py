"""Loading an agent's vocabulary file (docs/agent-file.md, "The vocabulary file").

The file is YAML::

    settings:
      language: pt-BR        # optional: the selector's language for this agent
    words:
      pt-BR:
        pedido: order        # a word or phrase -> the English word tool names use
        cobrar: charge       # an infinitive is also read in its regular forms
      en:
        bill: charge
    results:
      pt-BR:
        unpaid: não pago     # a result's value, field name or error, as a person reads it
        "order {order} is already paid": "o pedido {order} já está pago"

Only ``settings``, ``words`` and ``results`` may appear at the top, only ``language`` under
``settings``, only ``en`` and ``pt-BR`` under ``words``; every word and its
meaning is a non-empty string. Anything else raises ``VocabularyError`` with
the place (``words.pt-BR.pedido``) and the reason, so a typo is never read as
"no such word" later.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml

from catalogue.plan import Vocabulary

LANGUAGES = ("en", "pt-BR")


class VocabularyError(ValueError):
    """A vocabulary file that cannot be read: where, and why."""

    def __init__(self, place: str, reason: str) -> None:
        super().__init__(f"{place}: {reason}")
        self.place = place
        self.reason = reason


def load_vocabulary(path: str | Path) -> Vocabulary:
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise VocabularyError(str(path), f"cannot be read ({exc.__class__.__name__})") from exc
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise VocabularyError(str(path), f"is not valid YAML: {exc}") from exc
    return vocabulary_from_data(data, source=str(path))


def vocabulary_from_data(data: Any, *, source: str = "vocabulary") -> Vocabulary:
    if data is None:
        return Vocabulary()
    if not isinstance(data, Mapping):
        raise VocabularyError(source, "must be a mapping with 'settings', 'words' and/or 'results'")
    for key in data:
        if key not in ("settings", "words", "results"):
            raise VocabularyError(str(key), "unknown key (expected 'settings', 'words' or 'results')")
    language = _settings(data.get("settings"))
    words: dict[str, dict[str, str]] = {}
    raw_words = data.get("words")
    if raw_words is not None:
        if not isinstance(raw_words, Mapping):
            raise VocabularyError("words", "must be a mapping of language -> words")
        for lang, table in raw_words.items():
            if lang not in LANGUAGES:
                raise VocabularyError(f"words.{lang}", "unknown language (expected en or pt-BR)")
            words[lang] = _table(f"words.{lang}", table)
    results: dict[str, dict[str, str]] = {}
    raw_results = data.get("results")
    if raw_results is not None:
        if not isinstance(raw_results, Mapping):
            raise VocabularyError("results", "must be a mapping of language -> what results say")
        for lang, table in raw_results.items():
            if lang not in LANGUAGES:
                raise VocabularyError(f"results.{lang}", "unknown language (expected en or pt-BR)")
            results[lang] = _said(f"results.{lang}", table)
    return Vocabulary(language=language, words=words, results=results)


def _said(place: str, table: Any) -> dict[str, str]:
    """``results.LANG``: English text -> the person's text, kept as written (case and all)."""
    if table is None:
        return {}
    if not isinstance(table, Mapping):
        raise VocabularyError(place, "must be a mapping of English text -> its words")
    out: dict[str, str] = {}
    for said, words in table.items():
        if not isinstance(said, str) or not said.strip():
            raise VocabularyError(f"{place}.{said}", "the English text must be non-empty text")
        if not isinstance(words, str) or not words.strip():
            raise VocabularyError(f"{place}.{said}", "its words must be non-empty text")
        out[" ".join(said.split())] = words.strip()
    return out


def _settings(settings: Any) -> str | None:
    if settings is None:
        return None
    if not isinstance(settings, Mapping):
        raise VocabularyError("settings", "must be a mapping")
    for key in settings:
        if key != "language":
            raise VocabularyError(f"settings.{key}", "unknown setting (expected 'language')")
    language = settings.get("language")
    if language is not None and language not in LANGUAGES:
        raise VocabularyError("settings.language", f"{language!r} is not en or pt-BR")
    return language


def _table(place: str, table: Any) -> dict[str, str]:
    if table is None:
        return {}
    if not isinstance(table, Mapping):
        raise VocabularyError(place, "must be a mapping of word -> English word")
    out: dict[str, str] = {}
    for word, meaning in table.items():
        if not isinstance(word, str) or not word.strip():
            raise VocabularyError(f"{place}.{word}", "a word must be non-empty text")
        if not isinstance(meaning, str) or not meaning.strip():
            raise VocabularyError(f"{place}.{word}", "its meaning must be non-empty text")
        out[" ".join(word.lower().split())] = " ".join(meaning.lower().split())
    return out
