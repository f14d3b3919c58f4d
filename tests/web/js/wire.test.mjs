// node --test: lib/wire.js, lib/words.js, lib/sse.js (run from tests/web/test_lib.py).
import assert from "node:assert/strict";
import { test } from "node:test";

import { SSEParser } from "../../../static/stalwart/lib/sse.js";
import {
  decodeAnswer, decodeError, decodeEvent, decodePause, decodeRollback, formatValue, newThreadId, replyWithout, resumeBody,
} from "../../../static/stalwart/lib/wire.js";
import {
  answerKey, argumentWords, numberWords, originWord, readNumber, reasonWord, titleWord, toolWords,
} from "../../../static/stalwart/lib/words.js";

const PAUSE = {
  id: "p-1", kind: "confirm", tool: "charge_card", question: "Run charge_card?",
  arguments: [{ name: "amount", value: 40, origin: "typed" }, { name: "order_id", value: "4411", origin: "typed" }],
  reasons: ["write"], irreversible: false, choices: ["approve", "skip", "cancel_all"], token: "t", step: 1,
};

test("a PAUSE decodes with every field typed; values become text", () => {
  const p = decodePause(PAUSE);
  assert.deepEqual(p.arguments, [
    { name: "amount", value: "40", origin: "typed", number: 40 }, { name: "order_id", value: "4411", origin: "typed", number: null },
  ]);
  assert.equal(p.kind, "confirm");
  assert.equal(p.ask, null);
  const odd = decodePause({ id: 7, arguments: [null, { name: "x", value: { a: [1] }, origin: "model" }], reasons: "write" });
  assert.equal(odd.id, "7");
  assert.deepEqual(odd.arguments, [{ name: "x", value: '{"a":[1]}', origin: "model", number: null }]);
  assert.deepEqual(odd.reasons, []);
  assert.equal(decodePause(decodePause(PAUSE)).arguments[0].value, "40");
});

test("a value holding markup stays the same text", () => {
  assert.equal(formatValue("<img src=x onerror=alert(1)>"), "<img src=x onerror=alert(1)>");
  assert.equal(formatValue(null), "");
  assert.equal(formatValue(false), "false");
});

test("an ask pause keeps its question's kind and choices", () => {
  const p = decodePause({ ...PAUSE, kind: "ask", choices: ["answer"], ask: { kind: "choice", prompt: "Which?", choices: ["a", "b"] } });
  assert.deepEqual(p.ask, { kind: "choice", prompt: "Which?", choices: ["a", "b"] });
  assert.equal(decodePause({ kind: "ask", ask: { prompt: "Which order?" } }).ask.kind, "open");
});

test("a message answer decodes; interrupts lists read the same", () => {
  const a = decodeAnswer({
    thread: "u-1", run: "r-1", reply: { id: "m-1", text: "charge_card waits for your approval." },
    waiting: [PAUSE], refusals: [{ tool: "refund_card", rule: "privilege:refunds", sentence: "No.", step: 2 }],
    rollback: null, steps: [{ step: 1 }],
  });
  assert.equal(a.reply.id, "m-1");
  assert.equal(a.waiting[0].id, "p-1");
  assert.deepEqual(a.refusals, [{ tool: "refund_card", rule: "privilege:refunds", sentence: "No.", step: 2 }]);
  assert.equal(a.rollback, null);
  assert.equal(decodeAnswer({ interrupts: [PAUSE] }).waiting.length, 1);
  assert.equal(decodeAnswer({ reply: { id: "m", text: "" } }).reply, null);
  assert.deepEqual(decodeAnswer(null).waiting, []);
});

test("a rollback report decodes entries as objects or names; an empty one is nothing", () => {
  const r = decodeRollback({
    undone: [{ step: 1, tool: "charge_card", undo_tool: "refund_card" }],
    not_undoable: [{ step: 2, tool: "send_receipt" }], stuck: ["archive_order"],
  });
  assert.deepEqual(r.undone, [{ tool: "charge_card", undo: "refund_card", step: 1 }]);
  assert.deepEqual(r.not_undoable, [{ tool: "send_receipt", undo: "", step: 2 }]);
  assert.deepEqual(r.stuck, [{ tool: "archive_order", undo: "", step: null }]);
  assert.equal(decodeRollback({ undone: [], not_undoable: [], stuck: [] }), null);
  assert.equal(decodeRollback({ report: { undone: [{ tool: "a", undo: { tool: "b" } }] } }).undone[0].undo, "b");
});

test("a reply loses the lines its refusals already say", () => {
  assert.equal(replyWithout("Done.\nNo refunds here.", ["No refunds here."]), "Done.");
  assert.equal(replyWithout("No refunds here.", ["No refunds here."]), "");
  assert.equal(replyWithout("Done.", []), "Done.");
});

test("resume bodies and errors", () => {
  assert.deepEqual(resumeBody({ id: "p", token: "t" }, "approve"), { interrupt_id: "p", decision: "approve", token: "t" });
  assert.deepEqual(resumeBody({ id: "p", token: "t" }, "answer", { kind: "open", text: "x" }).answer, { kind: "open", text: "x" });
  assert.deepEqual(decodeError(409, { error: "interrupt_stale", detail: "No longer open." }),
    { status: 409, code: "interrupt_stale", detail: "No longer open." });
  assert.deepEqual(decodeError(502, null), { status: 502, code: "http_502", detail: "HTTP 502" });
  assert.deepEqual(decodeError(0, null, "Failed to fetch"), { status: 0, code: "network", detail: "Failed to fetch" });
});

test("thread ids fit the HTTP API's thread id pattern", () => {
  const id = newThreadId();
  assert.match(id, /^u-[0-9a-f]{20}$/);
  assert.notEqual(newThreadId(), id);
});

test("origins, reasons and answers in words", () => {
  assert.deepEqual(originWord("typed"), ["origin_typed", {}]);
  assert.deepEqual(originWord("result:2")[0], "origin_result");
  assert.deepEqual(originWord("staff"), ["origin_staff", {}]);
  assert.equal(originWord("elsewhere"), null);
  assert.deepEqual(reasonWord("write"), ["reason_write", {}]);
  assert.deepEqual(reasonWord("argument_origin: amount"), ["reason_argument_origin", { name: "amount" }]);
  assert.deepEqual(reasonWord("tainted_call: untrusted:read_inbox"), ["reason_tainted_call", { tool: "read_inbox" }]);
  assert.equal(reasonWord("something new"), null);
  assert.equal(answerKey("confirm", "cancel_all"), "cancelAll");
  assert.equal(answerKey("saga_stuck", "done_by_hand"), "doneByHand");
  assert.equal(answerKey("delegate", "approve"), "delegateApprove");
  assert.equal(answerKey("ask", "answer"), null);
  assert.equal(toolWords("charge_card"), "charge card");
  assert.equal(titleWord(PAUSE), null);  // the server's question, in the thread's language, is the title
  assert.deepEqual(titleWord({ ...PAUSE, question: "" }), ["confirmTitle", { tool: "Charge card" }]);
  assert.deepEqual(titleWord({ kind: "outcome_unknown", tool: "charge_card" }), ["unknownTitle", { tool: "charge card" }]);
  assert.equal(titleWord({ kind: "ask" }), null);
});

test("an argument reads as the server's label, else as its name in words, never the raw name", () => {
  const p = decodePause({ ...PAUSE, labels: { order_id: "Pedido", amount: 7 } });
  assert.deepEqual(p.labels, { order_id: "Pedido" });
  assert.equal(argumentWords(p, "order_id"), "Pedido");
  assert.equal(argumentWords(p, "amount"), "Amount");
  assert.equal(argumentWords(decodePause(PAUSE), "order_id"), "Order id");
  assert.deepEqual(decodePause({ ...PAUSE, labels: ["x"] }).labels, {});
});

test("server-sent events parse across chunks, CRLF, comments and multi-line data", () => {
  const parser = new SSEParser();
  assert.deepEqual(parser.feed(": hello\nid: 1\nevent: waiting\ndata: {\"id\":"), []);
  assert.deepEqual(parser.feed("\"p-1\"}\n\n"), [{ id: "1", event: "waiting", data: '{"id":"p-1"}' }]);
  assert.deepEqual(parser.feed("id: 2\r\nevent: reply\r\ndata: a\r\ndata: b\r\n\r"), []);
  assert.deepEqual(parser.feed("\n"), [{ id: "2", event: "reply", data: "a\nb" }]);
  assert.deepEqual(parser.feed("data: no type\n\n"), [{ id: "2", event: "message", data: "no type" }]);
  assert.deepEqual(parser.feed("retry: 500\nevent: x\n\n"), []);
  assert.equal(parser.retry, 500);
});

test("an event decodes to {id, type, data}; unreadable data is dropped", () => {
  assert.deepEqual(decodeEvent({ id: "7", event: "answered", data: '{"interrupt":"p-1"}' }),
    { id: 7, type: "answered", data: { interrupt: "p-1" } });
  assert.equal(decodeEvent({ id: "8", event: "reply", data: "{not json" }), null);
  assert.equal(decodeEvent({ id: "", event: "step", data: "{}" }).id, null);
});

test("a typed number shows as the person typed it; another in the language's own writing", () => {
  assert.equal(numberWords(99.9, "pt-BR", "cobre 99,90 no pedido 5001", "typed"), "99,90");
  assert.equal(numberWords(99.9, "en", "charge 99.90 to order 5001", "typed"), "99.90");
  assert.equal(numberWords(1234.5, "pt-BR", "cobre 1.234,50 no pedido 5001", "typed"), "1.234,50");
  // Not typed (or not in the turn): the language's writing, never grouped like an id.
  assert.equal(numberWords(99.9, "pt-BR", "cobre 99,90", "result:1"), "99,9");
  assert.equal(numberWords(99.9, "pt-BR", "", "typed"), "99,9");
  assert.equal(numberWords(4411, "en", "", "computed"), "4411");
  assert.equal(numberWords(40, "pt-BR", "cobre 40 no pedido 4411", "typed"), "40");
  // A token of another value is never borrowed: 5001 is not the amount.
  assert.equal(numberWords(50.01, "pt-BR", "cobre no pedido 5001", "typed"), "50,01");
  assert.equal(numberWords("40", "pt-BR"), null);
  assert.equal(numberWords(Number.NaN, "pt-BR"), null);
  assert.equal(readNumber("99,90", "pt-BR"), 99.9);
  assert.equal(readNumber("99.90", "en"), 99.9);
  assert.ok(Number.isNaN(readNumber("9,9,9", "pt-BR")));
});

test("a decoded pause decoded again keeps its numbers (the chat adds its words and decodes it anew)", () => {
  const once = decodePause(PAUSE);
  const twice = decodePause({ ...once, words: "charge card", turn: "charge 40 to order 4411" });
  assert.equal(twice.arguments[0].number, 40);
  // A value changed since (a staff edit) is not shown with the old number.
  const edited = decodePause({ ...once, arguments: [{ ...once.arguments[0], value: "41" }] });
  assert.equal(edited.arguments[0].number, null);
});

test("a pause's approvals decode with the group as a list, and decode again the same", async () => {
  const { decodeApprovals } = await import("../../../static/stalwart/lib/wire.js");
  const p = decodePause({ ...PAUSE, approvals: { needed: 2, given: [{ by: "session", at: "t", door: "widget", key: "x" }], group: "finance" } });
  assert.deepEqual(p.approvals, { needed: 2, given: [{ by: "session", at: "t", door: "widget" }], group: ["finance"] });
  assert.deepEqual(decodePause(p).approvals, p.approvals);
  assert.equal(decodePause(PAUSE).approvals, null);
  assert.deepEqual(decodeApprovals({ needed: "2", given: "x", group: [null, " legal "] }), { needed: 1, given: [], group: ["legal"] });
});

test("approvals read as lines: who approves, the count, and how many more once this page's is in", async () => {
  const { approvalLines } = await import("../../../static/stalwart/lib/words.js");
  const { decodeApprovals } = await import("../../../static/stalwart/lib/wire.js");
  const one = decodeApprovals({ needed: 2, given: [{ by: "a", door: "widget" }], group: null });
  assert.deepEqual(approvalLines(one), [{ kind: "count", key: "approvalsCount", params: { given: 1, needed: 2 } }]);
  assert.deepEqual(approvalLines(one, { recorded: true }).map((l) => [l.key, l.params]), [
    ["approvalsCount", { given: 1, needed: 2 }], ["approvalRecorded", { more: 1 }],
  ]);
  const groups = decodeApprovals({ needed: 1, given: [], group: ["finance", "legal"] });
  assert.deepEqual(approvalLines(groups, { lang: "pt-BR" }), [
    { kind: "group", key: "approvalsBy", params: { group: "finance e legal" } },
  ]);
  assert.deepEqual(approvalLines(null), []);
  assert.deepEqual(reasonWord("policy:big-charges"), ["reason_policy", { name: "big-charges" }]);
});
