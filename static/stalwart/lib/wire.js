// The wire format of the HTTP API (docs/http-api.md), decoded into plain data the elements show.
// DOM-free so it is tested on its own (tests/web/js/).
//
// A message answer: {thread, run, reply: {id, text} | null, waiting: [PAUSE],
// refusals: [{tool, rule, sentence, step}], rollback: {undone, not_undoable,
// stuck} | null, steps: [...]}. A PAUSE: {id, kind, tool, question, arguments:
// [{name, value, origin}], labels?: {name: words}, reasons, irreversible,
// choices, token, step, ask?, approvals?: {needed, given: [{by, at, door}], group}}.
// Errors: {error, detail}. Anything missing or of the wrong type is read as
// empty, never trusted to be markup: every string ends up in textContent.

const list = (value) => (Array.isArray(value) ? value : []);
const text = (value) => (typeof value === "string" ? value : value === null || value === undefined ? "" : String(value));

/** A value as one line of text: strings as they are, the rest as JSON. */
export function formatValue(value) {
  if (value === null || value === undefined) return "";
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  try {
    return JSON.stringify(value);
  } catch {
    return String(value);
  }
}

/** A pause's `approvals` under an approval policy (docs/widget.md, "Approvals"): {needed, given: [{by, at,
 * door}], group: [names]}, or null where the pause has none. `group` is a name, a list of names or null on
 * the wire; here always a list (empty: no group). Decoding a decoded value gives the same value. */
export function decodeApprovals(raw) {
  if (!raw || typeof raw !== "object" || Array.isArray(raw)) return null;
  const needed = Number.isInteger(raw.needed) && raw.needed > 0 ? raw.needed : 1;
  const given = list(raw.given).filter((g) => g && typeof g === "object")
    .map((g) => ({ by: text(g.by), at: text(g.at), door: text(g.door) }));
  const group = (Array.isArray(raw.group) ? raw.group : [raw.group]).map((g) => (typeof g === "string" ? g.trim() : ""))
    .filter(Boolean);
  return { needed, given, group };
}

/** One pause, with every field present and typed. */
export function decodePause(raw) {
  const p = raw && typeof raw === "object" ? raw : {};
  const ask = p.ask && typeof p.ask === "object" ? p.ask : null;
  return {
    id: text(p.id),
    kind: text(p.kind) || "confirm",
    tool: text(p.tool),
    question: text(p.question),
    arguments: list(p.arguments).filter((a) => a && typeof a === "object").map((a) => ({
      name: text(a.name), value: formatValue(a.value), origin: text(a.origin),
      // The number itself, for showing it as the person's language writes it (lib/words.js, numberWords).
      // (kept when a decoded pause is decoded again, as the chat does with the words it adds)
      number: typeof a.value === "number" && Number.isFinite(a.value) ? a.value
        : typeof a.number === "number" && Number.isFinite(a.number) && formatValue(a.value) === String(a.number) ? a.number : null,
    })),
    // Each argument's words in the thread's language, by name (the server's; absent from older servers).
    labels: Object.fromEntries(Object.entries(p.labels && typeof p.labels === "object" && !Array.isArray(p.labels) ? p.labels : {})
      .filter(([, v]) => typeof v === "string" && v)),
    reasons: list(p.reasons).map(text).filter(Boolean),
    irreversible: p.irreversible === true,
    choices: list(p.choices).map(text).filter(Boolean),
    token: text(p.token),
    step: typeof p.step === "number" ? p.step : null,
    run: text(p.run),
    turn: text(p.turn),
    // The tool's name in words, where the page knows it (/config.json's `can`).
    words: text(p.words),
    ask: ask ? {
      kind: ask.kind === "choice" ? "choice" : "open",
      prompt: text(ask.prompt),
      choices: list(ask.choices).map(text),
    } : null,
    approvals: decodeApprovals(p.approvals),
  };
}

/** A refusal: {tool, rule, sentence, step}. */
export function decodeRefusal(raw) {
  const r = raw && typeof raw === "object" ? raw : {};
  return { tool: text(r.tool), rule: text(r.rule), sentence: text(r.sentence), step: typeof r.step === "number" ? r.step : null };
}

function decodeEntry(raw) {
  if (typeof raw === "string") return { tool: raw, undo: "", step: null };
  const e = raw && typeof raw === "object" ? raw : {};
  const undo = e.undo_tool ?? e.undo ?? e.compensation ?? "";
  return {
    tool: text(e.tool),
    undo: typeof undo === "object" && undo ? text(undo.tool) : text(undo),
    step: typeof e.step === "number" ? e.step : null,
  };
}

/** A rollback report (docs/http-api.md, "The rollback report"), from an answer's `rollback` or a stream event
 * (which may carry it under `report`); null when there is nothing in it. */
export function decodeRollback(raw) {
  if (!raw || typeof raw !== "object") return null;
  const r = raw.report && typeof raw.report === "object" ? raw.report : raw;
  const report = {
    undone: list(r.undone).map(decodeEntry),
    not_undoable: list(r.not_undoable).map(decodeEntry),
    stuck: list(r.stuck).map(decodeEntry),
  };
  return report.undone.length || report.not_undoable.length || report.stuck.length ? report : null;
}

/** A message answer (POST messages, POST resume, and a 409's body). */
export function decodeAnswer(raw) {
  const a = raw && typeof raw === "object" ? raw : {};
  const reply = a.reply && typeof a.reply === "object" && text(a.reply.text) ? {
    id: text(a.reply.id),
    text: text(a.reply.text),
    sources: list(a.reply.sources).map(formatValue),
    citations: list(a.reply.citations).map(formatValue),
  } : null;
  return {
    thread: text(a.thread),
    run: text(a.run),
    reply,
    waiting: list(a.waiting ?? a.interrupts).map(decodePause),
    refusals: list(a.refusals).map(decodeRefusal),
    rollback: decodeRollback(a.rollback),
    steps: list(a.steps).filter((s) => s && typeof s === "object"),
  };
}

/**
 * A reply's text without the lines that refusals already say: the reply
 * repeats each refusal's sentence, and the refusal is shown as its own card.
 */
export function replyWithout(replyText, sentences) {
  const drop = new Set(list(sentences).map((s) => text(s).trim()).filter(Boolean));
  if (!drop.size) return text(replyText);
  return text(replyText).split("\n").filter((line) => !drop.has(line.trim())).join("\n").trim();
}

/** The body of POST /threads/{id}/resume. */
export function resumeBody(pause, decision, answer) {
  const body = { interrupt_id: pause.id, decision, token: pause.token };
  if (answer !== undefined) body.answer = answer;
  return body;
}

/** What went wrong, from a status and a (maybe JSON) body: {status, code, detail}. */
export function decodeError(status, body, fallback) {
  const b = body && typeof body === "object" ? body : {};
  const code = text(b.error) || (status ? `http_${status}` : "network");
  const detail = text(b.detail) || text(fallback) || (status ? `HTTP ${status}` : "");
  return { status: status || 0, code, detail };
}

/** One server-sent event ({id, event, data} from lib/sse.js) as {id, type, data}; null if unreadable. */
export function decodeEvent(raw) {
  if (!raw || typeof raw !== "object") return null;
  let data = raw.data;
  if (typeof data === "string") {
    try {
      data = JSON.parse(data);
    } catch {
      return null;
    }
  }
  const id = raw.id === undefined || raw.id === null || raw.id === "" ? null : Number(raw.id);
  return {
    id: Number.isFinite(id) ? id : null,
    type: text(raw.event || raw.type) || "message",
    data: data && typeof data === "object" ? data : {},
  };
}

/** A fresh thread id: "u-" and 20 hex digits (thread ids take letters, digits, '-': docs/http-api.md). */
export function newThreadId(random = globalThis.crypto) {
  const bytes = random.getRandomValues(new Uint8Array(10));
  return "u-" + Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}
