"""The built-in Brazilian Portuguese lexicon: verbs, grammar words, pronouns.

Every entry is written without accents: turns are read with accents stripped,
so "você" and "voce", "cartão" and "cartao" read alike.

A verb is listed once, in its infinitive, with the English verb it means; its
regular forms are derived (``pt_forms``): the imperative ("cobre", with the
spelling changes of -car/-gar/-çar/-cer/-ger/-gir/-guir: "busque", "pague"),
the familiar imperative that is also the present ("cobra"), plurals
("cobrem") and the gerund ("cobrando"). The English verb then reads through
the English groups (lexicon_en.GROUPS).
"""

from __future__ import annotations

import unicodedata

VERBS: dict[str, str] = {
    "mostrar": "show", "ver": "see", "exibir": "show", "consultar": "get", "buscar": "find",
    "procurar": "search", "pesquisar": "search", "listar": "list", "obter": "get",
    "abrir": "open", "checar": "check", "verificar": "check", "ler": "read",
    "encontrar": "find", "achar": "find", "trazer": "show",
    "criar": "create", "adicionar": "add", "cadastrar": "register", "incluir": "add",
    "registrar": "register",
    "alterar": "change", "atualizar": "update", "mudar": "change", "editar": "edit",
    "trocar": "change",
    "modificar": "modify",
    "cancelar": "cancel", "apagar": "delete", "excluir": "delete", "remover": "remove",
    "deletar": "delete",
    "enviar": "send", "mandar": "send", "encaminhar": "forward", "reenviar": "resend",
    "cobrar": "charge", "faturar": "bill", "debitar": "debit",
    "estornar": "refund", "reembolsar": "refund",
    "pagar": "pay", "quitar": "pay",
    "renovar": "renew", "prorrogar": "extend", "estender": "extend", "prolongar": "extend",
    "emprestar": "lend",
    "devolver": "return",
    "arquivar": "archive",
    "agendar": "schedule", "marcar": "book", "reservar": "reserve",
    "remarcar": "reschedule", "reagendar": "reschedule",
    "fechar": "close", "resolver": "resolve", "encerrar": "close",
    "reabrir": "reopen",
    "atribuir": "assign",
    "responder": "reply",
    "escalar": "escalate",
}

# Forms no rule derives.
IRREGULAR: dict[str, tuple[str, ...]] = {
    "ver": ("veja", "vejam", "ve", "vendo", "vejamos"),
    "ler": ("leia", "leiam", "le", "lendo"),
    "trazer": ("traga", "tragam", "traz", "trazendo"),
    "fazer": ("faca", "facam", "faz", "fazendo"),
}

# A light verb and an action noun: "faça uma cobrança" charges, "registre a
# devolução" returns. Every form of the light verb reads (pt_forms of the head).
LIGHT_VERBS: tuple[str, ...] = ("fazer", "efetuar", "realizar", "registrar")
ACTION_NOUNS: dict[str, str] = {
    "cobranca": "charge", "estorno": "refund", "reembolso": "refund", "pagamento": "pay",
    "devolucao": "return", "reserva": "reserve", "renovacao": "renew",
    "agendamento": "schedule",
}
ACTION_ARTICLES: tuple[str, ...] = ("", "um ", "uma ", "o ", "a ")

# A verb that names its thing too: "lembre o membro m-77" sends a reminder.
VERB_NOUNS: dict[str, tuple[str, str]] = {"lembrar": ("send", "reminder")}

QUESTIONS: frozenset[str] = frozenset({"qual", "quais", "quem", "o que"})
QUESTION_GRAMMAR: frozenset[str] = frozenset({"tem", "sao", "ha", "possui"})
# "lembre o membro m-77 de devolver o livro": a purpose, not a second call.
INFINITIVE_MARKERS: frozenset[str] = frozenset({"para", "pra", "de", "a"})
QUANTIFIERS: frozenset[str] = frozenset({"todos", "todas", "todos os", "todas as"})
DETAIL_WORDS: frozenset[str] = frozenset({
    "detalhes", "detalhe", "dados", "informacoes", "informacao", "info",
})


def phrase_forms(phrase: str) -> set[str]:
    """A verb phrase's forms: the head verb's forms, the rest as typed."""
    head, _, rest = phrase.partition(" ")
    return {f"{form} {rest}".strip() for form in pt_forms(head)}

GRAMMAR: frozenset[str] = frozenset({
    "o", "a", "os", "as", "um", "uma", "uns", "umas", "no", "na", "nos", "nas",
    "do", "da", "dos", "das", "ao", "aos", "para", "pra", "pro", "pros", "pras",
    "de", "em", "com", "por", "pelo", "pela", "pelos", "pelas", "meu", "minha",
    "meus", "minhas", "me", "mim", "voce", "vc", "voces", "pode", "podes", "poderia",
    "podia", "consegue", "conseguiria", "favor", "por favor", "eu", "queria", "quero",
    "gostaria", "preciso", "precisamos", "que", "agora", "ja", "tambem", "oi", "ola",
    "obrigado", "obrigada", "valeu", "numero", "num", "ok", "gentileza", "por gentileza",
    "se", "possivel", "rapidinho", "aqui", "esse", "essa", "este", "esta", "isto",
    "mesmo", "mesma", "codigo", "id", "seu", "sua", "nosso", "nossa", "la", "ai",
    "vamos", "deixa", "deixe", "ajuda", "ajudar", "quer", "queremos",
    "sobre", "porque", "pois", "ate", "mais", "a partir de", "a partir do", "a partir da",
})

CONJUNCTIONS: frozenset[str] = frozenset({
    "e", "depois", "e depois", "em seguida", "e em seguida", "entao", "e entao",
    "e tambem", "apos isso", "depois disso", "e depois disso",
})

PRONOUNS: frozenset[str] = frozenset({
    "nele", "nela", "neles", "nelas", "ele", "ela", "eles", "elas", "isso", "nisso",
    "o mesmo", "no mesmo", "do mesmo", "ao mesmo", "a mesma", "na mesma", "da mesma",
})
# "o total dele" / "seu total": a field of the previous call's result.
POSSESSIVES_BEFORE: frozenset[str] = frozenset({"seu", "sua"})
POSSESSIVES_AFTER: frozenset[str] = frozenset({"dele", "dela", "deles", "delas", "do mesmo"})

# Clitics split off a hyphenated verb: "mostre-me", "cobre-o".
CLITICS: frozenset[str] = frozenset({
    "me", "te", "lhe", "o", "a", "os", "as", "lo", "la", "los", "las", "nos",
})
OBJECT_CLITICS: frozenset[str] = frozenset({"o", "a", "os", "as", "lo", "la", "los", "las"})

ID_MARKERS: frozenset[str] = frozenset({"numero", "num", "n", "id", "codigo"})

# Nouns every catalogue may use, read as the English word tool names use.
NOUNS: dict[str, str] = {
    "cliente": "customer", "valor": "amount", "quantia": "amount", "montante": "amount",
    "email": "email", "e-mail": "email", "endereco de email": "email",
    "endereco de e-mail": "email", "dia": "day", "nome": "name", "data": "date",
    "mensagem": "message", "texto": "text", "motivo": "reason", "nota": "note",
    "quantidade": "quantity", "titulo": "title", "situacao": "status", "total": "total",
    "status": "status", "assunto": "subject", "descricao": "description",
    "prioridade": "priority", "comentario": "comment",
}

MONEY_WORDS: frozenset[str] = frozenset({"reais", "real", "dolares", "dolar", "brl", "usd"})

# "busque remédios chamados Dipirona": the word names the value that follows.
NAMING: dict[str, str] = {
    "chamado": "", "chamada": "", "chamados": "", "chamadas": "", "denominado": "",
    "denominada": "", "denominados": "", "denominadas": "", "intitulado": "title",
    "intitulada": "title", "intitulados": "title", "intituladas": "title",
    "com o nome": "name", "com nome": "name", "de nome": "name", "com o titulo": "title",
    "com titulo": "title", "rotulado": "label", "rotulada": "label", "rotulados": "label",
    "rotuladas": "label",
}
COUNTS: frozenset[str] = frozenset({
    "unidade", "unidades", "caixa", "caixas", "pacote", "pacotes", "embalagem", "embalagens",
    "frasco", "frascos", "item", "itens", "copia", "copias", "peca", "pecas",
})
# "da loja S-2 para a loja S-5". "a" is left out: far more often an article.
DIRECTIONS: dict[str, str] = {
    "de": "from", "da": "from", "do": "from", "das": "from", "dos": "from", "desde": "from",
    "para": "to", "pra": "to", "pro": "to", "pros": "to", "pras": "to", "ao": "to",
    "aos": "to", "ate": "to",
}
MINE: frozenset[str] = frozenset({"meu", "minha", "meus", "minhas", "nosso", "nossa"})
VAGUE_NOUNS: frozenset[str] = frozenset({"problema", "problemas"})


def fold(text: str) -> str:
    """Lower case without accents (cedilla included): the form lookups use."""
    nfkd = unicodedata.normalize("NFKD", text.lower())
    return "".join(c for c in nfkd if not unicodedata.combining(c))


def is_infinitive(word: str) -> bool:
    """-ar, -er, -ir, and the -por family (repor, compor, dispor)."""
    return (len(word) >= 3 and word[-2:] in ("ar", "er", "ir")) or (
        len(word) > 3 and word.endswith("por"))


def pt_forms(infinitive: str) -> set[str]:
    """The forms a regular verb is typed in, accents folded."""
    raw = infinitive.strip().lower()
    inf = fold(raw)
    forms = {inf}
    if inf in IRREGULAR:
        forms.update(IRREGULAR[inf])
    if len(inf) > 3 and inf.endswith("por"):
        # pôr's family: "repor" -> "reponha", "repõe", "repondo".
        head = inf[:-3]
        forms.update(head + f for f in ("ponha", "ponham", "poe", "poem", "pondo"))
        return forms
    if len(inf) < 3 or inf[-2:] not in ("ar", "er", "ir"):
        return forms
    stem, end = inf[:-2], inf[-2:]
    if end == "ar":
        if raw.endswith("çar"):
            subj = stem[:-1] + "ce"
        elif stem.endswith("c"):
            subj = stem[:-1] + "que"
        elif stem.endswith("g"):
            subj = stem + "ue"
        else:
            subj = stem + "e"
        forms.update({subj, subj + "m", stem + "a", stem + "am", stem + "ando"})
    else:
        if raw.endswith("cer"):
            subj = stem[:-1] + "ca"
        elif end in ("er", "ir") and stem.endswith("g") and not stem.endswith("gu"):
            subj = stem[:-1] + "ja"
        elif stem.endswith("gu"):
            subj = stem[:-1] + "a"
        else:
            subj = stem + "a"
        present = stem + "i" if stem.endswith("u") else stem + "e"
        gerund = stem + ("endo" if end == "er" else "indo")
        forms.update({subj, subj + "m", present, present + "m", gerund})
        if end == "ir":
            # An -ir verb turns the e of its last syllable into i where the
            # subjunctive is: transferir -> transfira, seguir -> siga, vestir -> vista.
            head = subj[:-1]
            at = head.rfind("e")
            if at > 0 and not any(c in "aeiou" for c in head[at + 1:]):
                changed = head[:at] + "i" + head[at + 1:] + "a"
                forms.update({changed, changed + "m"})
    return forms


def singular(word: str) -> str:
    """A Portuguese noun read as its singular: pedidos -> pedido, cartoes -> cartao."""
    if len(word) <= 3 or not word.endswith("s") or " " in word:
        return word
    for plural, single in (("oes", "ao"), ("aes", "ao"), ("ais", "al"), ("eis", "el"),
                           ("ois", "ol"), ("ns", "m"), ("res", "r"), ("zes", "z"),
                           ("ses", "s")):
        if word.endswith(plural) and len(word) > len(plural) + 1:
            return word[: -len(plural)] + single
    return word[:-1]
