"""The built-in English lexicon: action verbs, grammar words, pronouns.

Verbs are grouped into sets of equivalent actions. A typed verb reads as the
union of the groups it belongs to, and a tool is a candidate when its action
(the first word of its name) is in that set: "show order 4411" reaches
``get_order`` because ``show`` and ``get`` share the ``look`` group.

Grammar words are read and dropped. Anything a turn holds that is neither
grammar, a verb, a noun the catalogue knows, nor a value makes the turn
unread: a wrong call is worse than no call, so quantifiers ("all", "every")
and negations ("don't", "not") are deliberately *not* grammar.
"""

from __future__ import annotations

# Groups of equivalent actions. A verb may sit in several groups ("find" both
# looks one thing up and searches many); the catalogue's tools and the turn's
# nouns and values decide between them.
GROUPS: dict[str, frozenset[str]] = {
    "look": frozenset({
        "get", "show", "find", "view", "see", "display", "fetch", "read", "look up", "lookup",
        "retrieve", "check", "open", "describe", "look at", "pull up",
        "search", "list", "look for", "browse", "query",
    }),
    "create": frozenset({"create", "add", "make", "register", "insert"}),
    "update": frozenset({"update", "change", "edit", "modify", "set", "alter", "amend"}),
    "cancel": frozenset({"cancel", "void", "abort", "call off"}),
    "delete": frozenset({"delete", "remove", "erase", "drop", "destroy", "wipe"}),
    "send": frozenset({"send", "email", "mail", "forward", "resend", "deliver", "e-mail"}),
    "charge": frozenset({"charge", "bill", "debit"}),
    "refund": frozenset({"refund", "reimburse", "pay back", "give a refund", "issue a refund",
                         "process a refund", "make a refund", "do a refund"}),
    "pay": frozenset({"pay", "settle", "make a payment", "make the payment"}),
    "renew": frozenset({"renew", "extend"}),
    "lend": frozenset({"lend", "loan", "check out", "checkout", "borrow"}),
    "return": frozenset({"return", "give back", "bring back", "check in", "checkin"}),
    "archive": frozenset({"archive", "file away", "put away"}),
    "book": frozenset({"book", "schedule", "reserve", "put a hold on", "place a hold on",
                       "make a reservation", "make a booking"}),
    "reschedule": frozenset({"reschedule", "move", "postpone"}),
    "close": frozenset({"close", "resolve", "solve", "finish"}),
    "reopen": frozenset({"reopen", "re-open"}),
    "assign": frozenset({"assign"}),
    "reply": frozenset({"reply", "answer", "respond"}),
    "escalate": frozenset({"escalate"}),
}

# Words read as grammar and dropped.
GRAMMAR: frozenset[str] = frozenset({
    "a", "an", "the", "my", "our", "your", "this", "that", "these", "those",
    "to", "on", "in", "at", "for", "from", "of", "with", "by", "into", "onto", "about",
    "under", "as", "please", "pls", "plz", "kindly", "could", "can", "would", "will",
    "you", "u", "me", "i", "i'd", "i'm", "im", "we", "us", "let", "let's", "lets",
    "like", "want", "wanna", "need", "needs", "mind", "just", "now", "right", "away",
    "quickly", "also", "too", "hey", "hi", "hello", "ok", "okay", "thanks", "thank",
    "so", "be", "able", "is", "are", "do", "go", "ahead", "there", "number",
    "num", "id", "up", "quick", "real", "again", "for me", "it's", "i'll", "we'd",
    "we'll", "help", "try", "to me", "same", "one", "via", "sure", "yes", "ya", "because",
    "since", "another", "more", "have to", "has to", "wants",
})

# A verb that names its thing too: "remind member m-77" sends a reminder. The
# thing still needs a place in the tool, so it only reaches a catalogue that has one.
VERB_NOUNS: dict[str, tuple[str, str]] = {
    "remind": ("send", "reminder"),
    "make an appointment": ("book", "appointment"),
}

# Question words: a question reads (it looks a thing up), so a clause that asks
# one only ever plans a read tool, and only when it names a thing.
QUESTIONS: frozenset[str] = frozenset({
    "what", "what's", "whats", "which", "who", "who's", "do you", "does",
})
# Words read as grammar only inside a question ("what loans does member m-77 have").
QUESTION_GRAMMAR: frozenset[str] = frozenset({"have", "has"})

# A verb right after these, with no "and" or comma before, is a purpose, not a
# second call: "remind member m-77 to return book b-12" returns nothing.
INFINITIVE_MARKERS: frozenset[str] = frozenset({"to"})

# Quantifiers: harmless in a read ("show all orders of customer c-208"), never
# allowed to widen a write ("refund all orders").
QUANTIFIERS: frozenset[str] = frozenset({"all", "all of", "every"})

# Words asking for a thing's details: a place in any read tool, in no write.
DETAIL_WORDS: frozenset[str] = frozenset({
    "details", "detail", "info", "information", "full details",
})

# Words that join two calls of one turn.
CONJUNCTIONS: frozenset[str] = frozenset({
    "and", "then", "and then", "after that", "afterwards", "next", "and also",
    "also then", "plus",
})

# Words that point back to the previous call's thing.
PRONOUNS: frozenset[str] = frozenset({"it", "him", "them", "that one", "this one", "the same one"})
# Possessives: "its total" names a field of the previous call's result.
POSSESSIVES_BEFORE: frozenset[str] = frozenset({"its", "their"})
POSSESSIVES_AFTER: frozenset[str] = frozenset()

# Words between a thing and its value: "order number 4411", "order #4411".
ID_MARKERS: frozenset[str] = frozenset({"number", "num", "no", "id", "code"})

# Nouns every catalogue may use, read as the English word tool names use.
NOUNS: dict[str, str] = {
    "e-mail": "email", "mail address": "email", "email address": "email",
    "e-mail address": "email", "sum": "amount", "client": "customer",
}

# Words that name what follows: "find patients named Souza", "search products
# called Lamp". Each names the argument word it prefers ("" for any name).
NAMING: dict[str, str] = {
    "named": "name", "called": "", "labelled": "label", "labeled": "label", "titled": "title",
    "entitled": "title", "with the name": "name", "with name": "name", "by the name": "name",
    "by name": "name",
}

# Words that count what a number before them counts: "forty packs", "3 units".
COUNTS: frozenset[str] = frozenset({
    "unit", "units", "pack", "packs", "package", "packages", "box", "boxes", "piece",
    "pieces", "item", "items", "bottle", "bottles", "copy", "copies", "pcs",
})

# Prepositions that tell a direction: "from store S-2 to store S-5".
DIRECTIONS: dict[str, str] = {
    "from": "from", "out of": "from", "to": "to", "into": "to", "onto": "to",
}

# "my work orders": what the application knows of the person (context) fills it.
MINE: frozenset[str] = frozenset({"my", "our"})

# Nouns that name no thing of their own: "report a problem with vehicle X" reports
# on the vehicle; the verb then decides, and two equal fits are a choice. Read as
# grammar unless the catalogue names them.
VAGUE_NOUNS: frozenset[str] = frozenset({"problem", "issue"})

# Money words after a number: "40 dollars".
MONEY_WORDS: frozenset[str] = frozenset({
    "dollar", "dollars", "bucks", "usd", "reais", "real", "brl", "eur", "euro", "euros",
})


def verb_forms(verb: str) -> set[str]:
    """The forms an English verb is typed in: ``archive``, ``archiving``."""
    head, _, rest = verb.partition(" ")
    tail = f" {rest}" if rest else ""
    forms = {verb}
    if head.endswith("e") and not head.endswith("ee"):
        forms.add(head[:-1] + "ing" + tail)
    else:
        forms.add(head + "ing" + tail)
    return forms


def singular(word: str) -> str:
    """An English noun read as its singular: orders -> order, entries -> entry."""
    if len(word) <= 3 or not word.endswith("s") or " " in word:
        return word
    if word.endswith(("ss", "us", "is", "ous")):
        return word
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith(("sses", "xes", "ches", "shes", "zes")):
        return word[:-2]
    return word[:-1]
