"""The OpenAPI 3.1 description of the HTTP routes (docs/http-api.md), for
drf-spectacular: answer shapes as JSON Schema, the error shape with its codes,
and the headers the routes read.

A route is described by decorating its view with ``@extend_schema(...)``,
using ``errors(...)`` for its error answers, so a new route (rollback, stream,
feedback) joins ``/api/schema/`` by decorating its own view. The shapes say
what is always there and leave room (``additionalProperties``) for what a
later version adds, so a client generated from them keeps working.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse

NULLABLE_STRING: dict[str, Any] = {"type": ["string", "null"]}

ERROR: dict[str, Any] = {
    "type": "object",
    "description": "The error shape (docs/http-api.md, \"Errors\"). A 409 interrupt_stale also says what "
                   "became of the pause (`interrupt`) and what still waits (`waiting`); a 500 carries the "
                   "`request_id` that its log line names.",
    "required": ["error", "detail"],
    "properties": {
        "error": {"type": "string", "examples": ["bad_request", "not_found", "interrupt_stale"]},
        "detail": {"type": "string"},
        "request_id": {"type": "string"},
        "interrupt": {"type": "object"},
        "waiting": {"type": "array", "items": {"type": "object"}},
    },
}

ERROR_CODES = {
    400: "`bad_request`: not JSON, nested deeper than 32 levels, a lone surrogate, NaN/Infinity, a wrong "
         "type, an id too long, a malformed Idempotency-Key.",
    401: "`signature_invalid`: this server takes answers only with a valid Stalwart-Signature; "
         "`unauthorized`: a rollback without the operator token; `context_invalid`: a Stalwart-Context token "
         "that is not valid.",
    403: "`forbidden`: a rollback while no operator token is configured (the detail says how to set one).",
    404: "`not_found`: no such thread for this session, no such pause, or no such agent.",
    409: "`interrupt_stale`: the pause is no longer open or the token is not the one shown; "
         "`idempotency_in_progress`: the first request with this Idempotency-Key is still being answered.",
    413: "`too_large`: the body or the turn is over the limit.",
    415: "`bad_request`: the body is not application/json.",
    429: "`too_many_tries`: too many wrong operator tokens from this address; `Retry-After` says when to "
         "try again.",
    422: "`invalid_decision` / `invalid_answer`: a decision or answer the pause does not take; "
         "`idempotency_mismatch`: the Idempotency-Key was used with another request.",
    500: "`internal`: something failed on the server; `request_id` names it in the log.",
}


def errors(*statuses: int, **described: str) -> dict[int, OpenApiResponse]:
    """Error answers for ``@extend_schema(responses=...)``; every route also gets 500. ``described``
    (``e403="..."``) replaces one status's description for a route whose codes differ."""
    return {code: OpenApiResponse(response=ERROR, description=described.get(f"e{code}", ERROR_CODES[code]))
            for code in sorted({*statuses, 500})}


APPROVAL_RECORDED_WHEN = ("`approval_recorded`: an approval short of the quorum a policy asks for; the call waits "
                          "for the other approvals and nothing runs yet.")
RESUME_403 = ("`not_an_approver`: a policy covers this pause and does not let this caller answer it: only staff "
              "in the policy's group answer it (in the console), or the caller proposed the call itself "
              "(docs/policies.md). Nothing changes.")


ARGUMENT: dict[str, Any] = {
    "type": "object",
    "required": ["name", "value", "origin"],
    "properties": {"name": {"type": "string"}, "value": {}, "origin": {"type": "string"},
                   "field": {}},
}

APPROVALS: dict[str, Any] = {
    "type": "object",
    "description": "On a pause an approval policy covers (docs/policies.md): how many distinct approvals the "
                   "call needs, who gave them so far (name, door, time) and the staff group(s) that must give "
                   "them, if any.",
    "required": ["needed", "given", "group"],
    "properties": {
        "needed": {"type": "integer", "minimum": 1},
        "given": {"type": "array", "items": {
            "type": "object", "required": ["by", "at", "door"],
            "properties": {"by": {"type": "string"}, "at": {"type": "string"}, "door": {"type": "string"}}}},
        "group": {"type": ["string", "array", "null"], "items": {"type": "string"}},
    },
}

APPROVAL_RECORDED: dict[str, Any] = {
    "type": "object",
    "description": "An approval short of the quorum a policy asks for (docs/policies.md): recorded, and the "
                   "pause stays open, with the same id and token, for the other approvers.",
    "required": ["status", "detail", "interrupt_id", "approvals"],
    "properties": {
        "status": {"const": "approval_recorded"},
        "detail": {"type": "string"},
        "interrupt_id": {"type": "string"},
        "approvals": APPROVALS,
    },
}

PAUSE: dict[str, Any] = {
    "type": "object",
    "description": "A pause (docs/http-api.md, \"The pause\"): answer it at POST /threads/{id}/resume with its "
                   "id and token.",
    "required": ["id", "kind", "tool", "question", "arguments", "reasons", "irreversible", "choices", "token",
                 "step"],
    "properties": {
        "id": {"type": "string"},
        "kind": {"type": "string", "enum": ["confirm", "outcome_unknown", "saga_stuck", "ask", "delegate"]},
        "tool": {"type": "string"},
        "question": {"type": "string", "description": "The card's title, in the thread's language."},
        "arguments": {"type": "array", "items": ARGUMENT},
        "labels": {"type": "object", "additionalProperties": {"type": "string"},
                   "description": "Each argument's words in the thread's language, by argument name."},
        "reasons": {"type": "array", "items": {"type": "string"}},
        "irreversible": {"type": "boolean"},
        "choices": {"type": "array", "items": {"type": "string"}},
        "token": {"type": "string"},
        "step": {"type": ["integer", "null"]},
        "run": {"type": "string", "description": "The run that waits on it."},
        "ask": {"type": ["object", "null"]},
        "argument": NULLABLE_STRING,
        "approvals": APPROVALS,
    },
}

STEP: dict[str, Any] = {
    "type": "object",
    "required": ["step", "tool", "kind", "status", "arguments", "reasons"],
    "properties": {
        "step": {"type": "integer"}, "tool": {"type": "string"}, "kind": {"type": "string"},
        "status": {"type": "string"}, "arguments": {"type": "array", "items": ARGUMENT},
        "reasons": {"type": "array"}, "result": {}, "error": {"type": "string"}, "rule": {"type": "string"},
    },
}

MESSAGE_ANSWER: dict[str, Any] = {
    "type": "object",
    "description": "A message answer (docs/http-api.md, \"POST /threads/{id}/messages\"): the reply, what "
                   "waits, refusals and any rollback, as data.",
    "required": ["thread", "run", "status", "reply", "waiting", "refusals", "rollback", "steps", "not_notified"],
    "properties": {
        "thread": {"type": "string"},
        "run": {"type": "string"},
        "status": {"type": "string"},
        "reply": {"type": ["object", "null"], "required": ["id", "text"],
                  "properties": {"id": {"type": "string"}, "text": {"type": "string"}}},
        "waiting": {"type": "array", "items": PAUSE},
        "refusals": {"type": "array", "items": {
            "type": "object", "required": ["tool", "rule", "sentence"],
            "properties": {"tool": {"type": "string"}, "rule": {"type": "string"},
                           "sentence": {"type": "string"}, "step": {"type": "integer"}}}},
        "rollback": {"type": ["object", "null"]},
        "steps": {"type": "array", "items": STEP},
        "not_notified": {"type": "array", "items": {"type": "object"}},
    },
}

INTERRUPTS: dict[str, Any] = {
    "type": "object",
    "required": ["thread", "interrupts", "waiting"],
    "properties": {"thread": {"type": "string"}, "interrupts": {"type": "array", "items": PAUSE},
                   "waiting": {"type": "array", "items": PAUSE}},
}

PLAN: dict[str, Any] = {
    "type": "object",
    "description": "The plan: the calls the turn would make, in order, and the questions it needs answered.",
    "required": ["language", "read", "calls", "asks"],
    "properties": {
        "language": {"type": "string"},
        "read": {"type": "boolean"},
        "calls": {"type": "array", "items": {
            "type": "object", "required": ["step", "tool", "arguments"],
            "properties": {"step": {"type": "integer"}, "tool": {"type": "string"},
                           "arguments": {"type": "array", "items": ARGUMENT}}}},
        "asks": {"type": "array", "items": {
            "type": "object", "required": ["step", "argument", "question"],
            "properties": {"step": {"type": "integer"}, "argument": NULLABLE_STRING,
                           "question": {"type": "object"}, "tools": {"type": "array", "items": {"type": "string"}}}}},
    },
}

HEALTH: dict[str, Any] = {"type": "object", "required": ["ok"], "properties": {"ok": {"const": True}}}

CONFIG: dict[str, Any] = {
    "type": "object",
    "required": ["name", "purpose", "language", "languages", "base", "can", "agents"],
    "properties": {
        "name": {"type": "string"}, "purpose": {"type": "string"}, "language": {"type": "string"},
        "languages": {"type": "array", "items": {"type": "string"}}, "base": {"type": "string"},
        "greeting": {},
        "can": {"type": "array", "items": {
            "type": "object", "required": ["tool", "kind"],
            "properties": {"tool": {"type": "string"}, "words": {}, "kind": {"type": "string"},
                           "description": {}}}},
        "agents": {"type": "array", "items": {"type": "string"}},
    },
}

REPORT_ENTRY: dict[str, Any] = {
    "type": "object", "required": ["step", "tool"],
    "properties": {"step": {"type": "integer"}, "tool": {"type": "string"}, "undo": {"type": "string"},
                   "run": {"type": "string"}},
}
ROLLBACK: dict[str, Any] = {
    "type": "object",
    "description": "An operator's rollback: what each of the thread's runs undid, could not undo, or left stuck "
                   "(each entry names the step, its tool and, when undone, the undo tool), and what waits now.",
    "required": ["thread", "rollback", "runs", "waiting"],
    "properties": {
        "thread": {"type": "string"},
        "rollback": {"type": "object", "required": ["undone", "not_undoable", "stuck"], "properties": {
            key: {"type": "array", "items": REPORT_ENTRY} for key in ("undone", "not_undoable", "stuck")}},
        "runs": {"type": "array", "items": {"type": "string"}},
        "waiting": {"type": "array", "items": PAUSE},
    },
}
FEEDBACK_TAKEN: dict[str, Any] = {
    "type": "object", "required": ["thread", "message", "thumb", "comment"],
    "properties": {"thread": {"type": "string"}, "message": {"type": "string"},
                   "thumb": {"enum": ["up", "down"]}, "comment": {"type": "string"}},
}

SESSION = OpenApiParameter(
    "Stalwart-Session", OpenApiTypes.STR, OpenApiParameter.HEADER, required=False,
    description="The session id the first answer handed out (16 to 128 of A-Z a-z 0-9 _ -); "
                "a thread belongs to the session that opened it.",
)
IDEMPOTENCY_KEY = OpenApiParameter(
    "Idempotency-Key", OpenApiTypes.STR, OpenApiParameter.HEADER, required=False,
    pattern=r"^[!-~]([ -~]{0,253}[!-~])?$",
    description="1 to 255 visible ASCII characters (optionally a quoted structured-field string). The same "
                "key and body answers the first response again and starts nothing; another body is 422; "
                "while the first is still running, 409. Kept per session for 24 hours.",
)
SIGNATURE = OpenApiParameter(
    "Stalwart-Signature", OpenApiTypes.STR, OpenApiParameter.HEADER, required=False,
    description="`t=<unix time>,v1=<hex HMAC-SHA256 of \"<t>.<body>\">`; required when the server has a "
                "resume secret (docs/http-api.md, \"Signed resumes\").",
)
CLIENT = OpenApiParameter(
    "Stalwart-Client", OpenApiTypes.STR, OpenApiParameter.HEADER, required=False,
    description="`widget` from Stalwart's own chat widget: the console's decisions page then says the answer "
                "came from the widget. Any other value, or none, is recorded as HTTP; it changes nothing else.",
)
THREAD_ID = OpenApiParameter(
    "thread_id", OpenApiTypes.STR, OpenApiParameter.PATH, pattern=r"^[A-Za-z0-9_.:-]{1,128}$",
    description="1 to 128 letters, digits, '-', '_', '.' or ':'.",
)
THREAD_KEY = OpenApiParameter(
    "thread_id", OpenApiTypes.STR, OpenApiParameter.PATH, pattern=r"^[A-Za-z0-9_.:-]{1,128}(~[0-9a-f]{16})?$",
    description="The thread's stored key, as the console shows it: its id, '~' and 16 hex digits (the id and "
                "the session that opened it).",
)

NAMED: dict[str, dict[str, Any]] = {
    "MessageAnswer": MESSAGE_ANSWER, "Interrupts": INTERRUPTS, "Plan": PLAN, "Config": CONFIG, "Health": HEALTH,
    "Pause": PAUSE, "Step": STEP, "Argument": ARGUMENT, "Error": ERROR, "Rollback": ROLLBACK,
    "Feedback": FEEDBACK_TAKEN, "Approvals": APPROVALS, "ApprovalRecorded": APPROVAL_RECORDED,
}

AUTHORIZATION = OpenApiParameter(
    "Authorization", OpenApiTypes.STR, OpenApiParameter.HEADER, required=True,
    description="`Bearer <operator token>` (STALWART_OPERATOR_TOKEN or --operator-token), compared in constant time.",
)

STREAM_PATH = "/threads/{thread_id}/stream"
STREAM: dict[str, Any] = {  # a plain async Django view (no DRF), so described here
    "get": {
        "operationId": "thread_stream",
        "summary": "The thread's events as server-sent events, resumable with Last-Event-ID",
        "description": "`id: <n>` (the thread's own sequence), `event: <type>` (turn, step, waiting, answered, "
                       "refused, reply, rollback, expired, approval), `data: <JSON object>`; a comment every 15 s; "
                       "`Last-Event-ID: n` (or `?last_event_id=n`) replays from n+1, then goes live. Only the "
                       "thread's session (the header, or `?session=` where a client cannot set headers) and "
                       "staff may open it.",
        "parameters": [
            {"name": "thread_id", "in": "path", "required": True,
             "schema": {"type": "string", "pattern": r"^[A-Za-z0-9_.:-]{1,128}$"}},
            {"name": "Stalwart-Session", "in": "header", "required": False, "schema": {"type": "string"}},
            {"name": "session", "in": "query", "required": False, "schema": {"type": "string"}},
            {"name": "Last-Event-ID", "in": "header", "required": False, "schema": {"type": "string"}},
            {"name": "last_event_id", "in": "query", "required": False, "schema": {"type": "string"}},
        ],
        "responses": {
            "200": {"description": "The event stream.", "content": {"text/event-stream": {"schema": {"type": "string"}}}},
            **{str(code): {"description": ERROR_CODES[code],
                           "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}}
               for code in (400, 404, 500)},
        },
    },
}


def _hoist(node: Any, skip: str = "") -> Any:
    if isinstance(node, dict):
        for name, schema in NAMED.items():
            if name != skip and node == schema:
                return {"$ref": f"#/components/schemas/{name}"}
        return {key: _hoist(value) for key, value in node.items()}
    if isinstance(node, list):
        return [_hoist(value) for value in node]
    return node


SESSION_EXPR = "$response.header.Stalwart-Session"
LINKS: dict[str, dict[str, Any]] = {  # what a message answer leads to (OpenAPI links; fuzzers follow them)
    "ListInterrupts": {"operationId": "thread_interrupt_list", "parameters": {
        "path.thread_id": "$response.body#/thread", "header.Stalwart-Session": SESSION_EXPR}},
    "Resume": {"operationId": "thread_resume", "parameters": {
        "path.thread_id": "$response.body#/thread", "header.Stalwart-Session": SESSION_EXPR},
        "requestBody": {"interrupt_id": "$response.body#/waiting/0/id", "token": "$response.body#/waiting/0/token",
                        "decision": "approve"}},
}


def components_hoist(result: dict[str, Any], generator: Any, request: Any, public: bool) -> dict[str, Any]:
    """drf-spectacular post-processing hook: the shapes above become named
    components (``#/components/schemas/Pause``...), so generated clients get
    one type per shape instead of one per place it appears; the served
    agents' names become the ``agent`` field's choices; a message answer
    links to listing and answering what it left waiting."""
    from catalogue import registry
    from threads.engine import PAUSE_DECISIONS

    result["paths"] = _hoist(result["paths"])
    schemas = result.setdefault("components", {}).setdefault("schemas", {})
    for name, schema in NAMED.items():
        schemas[name] = {key: _hoist(value) for key, value in schema.items()}
    decision = schemas.get("Resume", {}).get("properties", {}).get("decision")
    if decision is not None:  # any other string is 422 invalid_decision
        decision["enum"] = sorted({answer for answers in PAUSE_DECISIONS.values() for answer in answers})
    agent = schemas.get("Turn", {}).get("properties", {}).get("agent")
    if agent is not None:
        agent["enum"] = [*(a.name for a in registry.agent_file().agents), None]
    for item in result["paths"].values():
        for operation in item.values():
            if operation.get("operationId") in ("thread_message_create", "thread_resume"):
                operation["responses"]["200"]["links"] = LINKS
    result["paths"][STREAM_PATH] = STREAM
    return result
