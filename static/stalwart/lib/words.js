// What the run reports, said in words: argument origins, reasons, answers,
// a pause's title. Each returns [key, params] for lib/strings.js, or null where
// the data has no word of its own (then it is shown as the data says it).

const ORIGINS = {
  typed: "origin_typed",
  reply: "origin_reply",
  context: "origin_context",
  computed: "origin_computed",
  model: "origin_model",
  agent: "origin_agent",
  staff: "origin_staff",
};

/** An argument's origin: "typed" -> origin_typed; "result:2" -> origin_result. */
export function originWord(origin) {
  if (typeof origin !== "string") return null;
  if (origin.startsWith("result:") || origin === "result") return ["origin_result", { step: origin.slice(7) }];
  const key = ORIGINS[origin];
  return key ? [key, {}] : null;
}

/** A reason the check gave (docs/http-api.md, "The pause"): "write", "egress", "argument_origin: amount",
 * "tainted_call: untrusted:read_inbox", "policy:big-charges" (an approval policy of the agent file). */
export function reasonWord(reason) {
  if (typeof reason !== "string") return null;
  if (reason === "write") return ["reason_write", {}];
  if (reason === "egress") return ["reason_egress", {}];
  let m = /^argument_origin:\s*(.+)$/.exec(reason);
  if (m) return ["reason_argument_origin", { name: m[1] }];
  m = /^tainted_call:\s*(?:untrusted:)?(.+)$/.exec(reason);
  if (m) return ["reason_tainted_call", { tool: m[1] }];
  m = /^policy:\s*(.+)$/.exec(reason);
  if (m) return ["reason_policy", { name: m[1] }];
  return null;
}

/** Reasons that the pause's own title already says, so they are not listed again. */
export const SILENT_REASONS = new Set(["ask", "unread"]);

const ANSWERS = {
  confirm: { approve: "approve", skip: "skip", cancel_all: "cancelAll" },
  outcome_unknown: { happened: "happened", did_not_happen: "didNotHappen" },
  saga_stuck: { retry: "retry", done_by_hand: "doneByHand", abandon: "abandon" },
  delegate: { approve: "delegateApprove", decline: "decline" },
};

/** The key of the button for `decision` on a pause of `kind`, or null. */
export function answerKey(kind, decision) {
  return ANSWERS[kind]?.[decision] ?? null;
}

/** "charge_card" -> "charge card" (names read as words: docs/agent-file.md, "catalogue.json"). */
export function toolWords(tool) {
  return String(tool ?? "").replace(/[_\-.]+/g, " ").trim();
}

/** An argument as a person reads it: the server's label (in the thread's language), else its
 * name read as words: "order_id" -> "Order id". Never the raw name. */
export function argumentWords(pause, name) {
  const label = pause?.labels?.[name];
  return typeof label === "string" && label ? label : capitalise(toolWords(name));
}

/** A pause's title: [key, params], or null when the pause's own question is the title (ask, and a
 * confirm whose question the server worded in the thread's language). */
export function titleWord(pause, wordsOfTool = toolWords) {
  const tool = pause?.tool ? wordsOfTool(pause.tool) : "";
  switch (pause?.kind) {
    case "confirm": return pause.question ? null : ["confirmTitle", { tool: capitalise(tool) }];
    case "outcome_unknown": return ["unknownTitle", { tool }];
    case "saga_stuck": return ["stuck", { tool }];
    case "delegate": return ["delegateTitle", {}];
    default: return null;
  }
}

export function capitalise(text) {
  return text ? text[0].toUpperCase() + text.slice(1) : text;
}

const OUTCOMES = {
  succeeded: "outcome_succeeded", failed: "outcome_failed", refused: "outcome_refused", skipped: "outcome_skipped",
  cancelled: "outcome_cancelled", undone: "outcome_undone", outcome_unknown: "outcome_unsure",
};

/** What became of an answered call, from its step's status: a key, or null while it is not settled. */
export function outcomeKey(status) {
  return OUTCOMES[status] ?? null;
}

// A number as the person wrote it, or as their language writes it (docs/widget.md, "Numbers"):
// "cobre 99,90" shows 99,90, never the 99.9 the server computes with.
const NUMBER_IN_TEXT = /\d[\d.,]*\d|\d/g;

/** `token` ("99,90", "1.234,5", "99.90") read as a number the way `lang` writes it, or NaN. */
export function readNumber(token, lang) {
  const pt = String(lang || "").toLowerCase().startsWith("pt");
  const plain = pt ? token.replace(/\./g, "").replace(",", ".") : token.replace(/,/g, "");
  return /^\d+(\.\d+)?$/.test(plain) ? Number(plain) : NaN;
}

/** A number argument's words: the very token the person typed where the turn holds one of the
 * same value (`typed` origin), else the number in `lang`'s own writing (99.9 -> "99,9" in pt-BR). */
export function numberWords(value, lang, turn = "", origin = "") {
  if (typeof value !== "number" || !Number.isFinite(value)) return null;
  if (origin === "typed" && turn) {
    for (const token of String(turn).match(NUMBER_IN_TEXT) || []) {
      if (readNumber(token, lang) === value) return token;
    }
  }
  try {
    return new Intl.NumberFormat(lang || "en", { useGrouping: false, maximumFractionDigits: 20 }).format(value);
  } catch {
    return String(value);
  }
}

/** Names joined as `lang` joins a list: ["finance", "legal"] -> "finance and legal" ("finance e legal"). */
export function listWords(items, lang) {
  try {
    return new Intl.ListFormat(lang || "en", { type: "conjunction" }).format(items);
  } catch {
    return items.join(", ");
  }
}

/** What a pause's approvals (lib/wire.js, decodeApprovals) say on its card, one line each, `{kind, key,
 * params}`: who approves, where a group is named ("Waits for approval by finance."); how far the quorum
 * is, where it needs more than one ("1 of 2 approvals"); and, once this page's own approval is in
 * (`recorded`), how many more it waits for. */
export function approvalLines(approvals, { recorded = false, lang = "en" } = {}) {
  if (!approvals) return [];
  const lines = [];
  const given = Math.min(approvals.given.length, approvals.needed);
  if (approvals.group.length) lines.push({ kind: "group", key: "approvalsBy", params: { group: listWords(approvals.group, lang) } });
  if (approvals.needed > 1) lines.push({ kind: "count", key: "approvalsCount", params: { given, needed: approvals.needed } });
  if (recorded && approvals.needed > given) {
    lines.push({ kind: "recorded", key: "approvalRecorded", params: { more: approvals.needed - given } });
  }
  return lines;
}
