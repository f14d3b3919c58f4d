"""What the hand-off says to the person when something went wrong, by language.

``MESSAGES`` holds one sentence per case (no model, no key, a refused key, an
error or a timeout of the model, an answer that cannot be read, tools the
catalogue lacks), in English and Brazilian Portuguese; the English ones are
also plain constants.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

# Sentences for the person, by language. ``{variable}``, ``{status}``,
# ``{tools}`` and ``{reason}`` are filled where they appear. The key wording
# follows the interface's ``modelKey*`` strings (seed 002).
MESSAGES: Final[Mapping[str, Mapping[str, str]]] = {
    "en": {
        "no_model": (
            "Your bot needs your AI key to help with this: no AI model is set up for it yet."
        ),
        "no_key": (
            "Your bot needs your AI key ({variable}) to help with this; until you add it, it "
            "can't help."
        ),
        "key_refused": (
            "Your AI provider refused the key in {variable}, so your bot can't help with this; "
            "check the key as your provider gave it."
        ),
        "model_status": (
            "The AI model answered with an error (HTTP {status}), so your bot can't help with "
            "this right now."
        ),
        "model_unreachable": (
            "The AI model could not be reached, so your bot can't help with this right now."
        ),
        "model_timeout": (
            "The AI model took too long to answer, so your bot can't help with this right now."
        ),
        "garbage_body": (
            "The AI model's answer could not be read, so your bot can't help with this."
        ),
        "garbage_empty": "The AI model answered with nothing, so your bot can't help with this.",
        "garbage_arguments": (
            "The AI model wrote arguments for {tools} that could not be read, so nothing was "
            "planned."
        ),
        "garbage_question": (
            "The AI model asked a question that can't be shown ({reason}), so your bot can't help "
            "with this."
        ),
        "unknown_tools": (
            "The AI model named tools your bot doesn't have ({tools}), so those calls were left "
            "out."
        ),
        "only_unknown_tools": (
            "The AI model named only tools your bot doesn't have ({tools}), so nothing was planned."
        ),
    },
    "pt-BR": {
        "no_model": (
            "Seu bot precisa da sua chave de IA para ajudar com isso: nenhum modelo de IA foi "
            "configurado para ele ainda."
        ),
        "no_key": (
            "Seu bot precisa da sua chave de IA ({variable}) para ajudar com isso; até você "
            "adicioná-la, ele não consegue ajudar."
        ),
        "key_refused": (
            "Seu provedor de IA recusou a chave em {variable}, então seu bot não consegue ajudar "
            "com isso; confira a chave como o provedor a forneceu."
        ),
        "model_status": (
            "O modelo de IA respondeu com um erro (HTTP {status}), então seu bot não consegue "
            "ajudar com isso agora."
        ),
        "model_unreachable": (
            "Não foi possível falar com o modelo de IA, então seu bot não consegue ajudar com "
            "isso agora."
        ),
        "model_timeout": (
            "O modelo de IA demorou demais para responder, então seu bot não consegue ajudar com "
            "isso agora."
        ),
        "garbage_body": (
            "Não foi possível ler a resposta do modelo de IA, então seu bot não consegue ajudar "
            "com isso."
        ),
        "garbage_empty": (
            "O modelo de IA respondeu sem conteúdo, então seu bot não consegue ajudar com isso."
        ),
        "garbage_arguments": (
            "O modelo de IA escreveu argumentos ilegíveis para {tools}, então nada foi planejado."
        ),
        "garbage_question": (
            "O modelo de IA fez uma pergunta que não pode ser mostrada ({reason}), então seu bot "
            "não consegue ajudar com isso."
        ),
        "unknown_tools": (
            "O modelo de IA citou ferramentas que seu bot não tem ({tools}), então essas chamadas "
            "ficaram de fora."
        ),
        "only_unknown_tools": (
            "O modelo de IA citou só ferramentas que seu bot não tem ({tools}), então nada foi "
            "planejado."
        ),
    },
}
DEFAULT_LANGUAGE: Final = "en"

# English sentences as plain constants, for callers and tests that name one.
NO_MODEL_MESSAGE: Final = MESSAGES["en"]["no_model"]
NO_KEY_MESSAGE: Final = MESSAGES["en"]["no_key"]
KEY_REFUSED_MESSAGE: Final = MESSAGES["en"]["key_refused"]
MODEL_STATUS_MESSAGE: Final = MESSAGES["en"]["model_status"]
MODEL_UNREACHABLE_MESSAGE: Final = MESSAGES["en"]["model_unreachable"]
MODEL_TIMEOUT_MESSAGE: Final = MESSAGES["en"]["model_timeout"]
GARBAGE_BODY_MESSAGE: Final = MESSAGES["en"]["garbage_body"]
GARBAGE_EMPTY_MESSAGE: Final = MESSAGES["en"]["garbage_empty"]
GARBAGE_ARGUMENTS_MESSAGE: Final = MESSAGES["en"]["garbage_arguments"]
GARBAGE_QUESTION_MESSAGE: Final = MESSAGES["en"]["garbage_question"]
UNKNOWN_TOOLS_MESSAGE: Final = MESSAGES["en"]["unknown_tools"]
ONLY_UNKNOWN_TOOLS_MESSAGE: Final = MESSAGES["en"]["only_unknown_tools"]
