"""The hand-off's two values: the ``model:`` block it is given and what it gives back.

``ModelConfig`` is an agent's model as the agent file names it
(docs/agent-file.md, "model"); ``ModelAnswer`` is what ``delegate`` reads
back, with the error codes a failed hand-off answers with.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from catalogue.plan import Call

# Error codes of ``ModelAnswer.error``.
NO_MODEL: Final = "no_model"
NO_KEY: Final = "no_key"
MODEL_ERROR: Final = "model_error"
MODEL_TIMEOUT: Final = "model_timeout"
MODEL_GARBAGE: Final = "model_garbage"
ERRORS: Final = (NO_MODEL, NO_KEY, MODEL_ERROR, MODEL_TIMEOUT, MODEL_GARBAGE)


@dataclass(frozen=True)
class ModelConfig:
    """The agent file's ``model:`` block (docs/agent-file.md, "model")."""

    base_url: str
    model: str
    key_env: str = "OPENAI_API_KEY"
    timeout: float = 30.0

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> ModelConfig:
        return cls(
            base_url=str(data["base_url"]),
            model=str(data["model"]),
            key_env=str(data.get("key_env") or "OPENAI_API_KEY"),
            timeout=float(data.get("timeout") or 30.0),
        )


@dataclass(frozen=True)
class ModelAnswer:
    """What the model gave back. At most one of calls, question and text is set;
    ``detail`` can accompany calls too, saying which tools were dropped."""

    calls: tuple[Call, ...] = ()  # every Argument of origin "model", steps from 1
    question: Mapping[str, Any] | None = None  # a validated question (clarify), as docs/http-api.md shows one
    text: str = ""  # the model's plain reply, when it made no calls
    error: str | None = None  # one of ERRORS
    detail: str = ""  # one sentence for the person
    dropped: tuple[str, ...] = ()  # tools the model named that the catalogue lacks

    @property
    def ok(self) -> bool:
        return self.error is None
