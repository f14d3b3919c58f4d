// Decoding the wire format (SPEC §10), DOM-free so it can be tested alone.

export const ORIGIN_WORDS = {
  typed: "you typed it",
  reply: "you answered it",
  context: "the application gave it",
  computed: "computed",
  model: "the assistant wrote it",
  agent: "another agent gave it",
};

export function originWords(origin) {
  if (typeof origin === "string" && origin.startsWith("result:")) {
    return `from step ${origin.slice(7)}'s result`;
  }
  return ORIGIN_WORDS[origin] || String(origin);
}

export function formatValue(value) {
  if (value === null || value === undefined) return "";
  return typeof value === "object" ? JSON.stringify(value) : String(value);
}

export function resumeBody(pause, decision, answer) {
  const body = { interrupt_id: pause.id, decision, token: pause.token };
  if (answer !== undefined) body.answer = answer;
  return body;
}
