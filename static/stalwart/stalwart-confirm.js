// <stalwart-confirm>: one call that waits for a person (docs/widget.md, docs/http-api.md "The pause"): its
// wording, the arguments with where each value came from, the reasons, the
// irreversible warning, and one button per answer its kind takes. A choice
// fires `stalwart-decision` (bubbling, composed) with the pause id, the
// decision and the pause's token; sending it is the page's (or the chat's) job.
// Under an approval policy the card says who approves and how far the quorum
// is; where a group is named (only its staff answer, in the console), or once
// this page's own approval is recorded, it shows no answers, only those lines.
import { StalwartElement, el, uid } from "./base.js";
import { CONFIRM } from "./styles.js";
import { decodeApprovals, decodePause } from "./lib/wire.js";
import {
  SILENT_REASONS, answerKey, approvalLines, argumentWords, numberWords, originWord, reasonWord, titleWord, toolWords,
} from "./lib/words.js";

const PRIMARY = new Set(["approve", "happened", "retry"]);

export class StalwartConfirmElement extends StalwartElement {
  static styles = CONFIRM;
  static properties = ["interrupt", "labels", "single"];
  static observedAttributes = ["lang"];

  /** The PAUSE to show (docs/http-api.md, "The pause"), or null. */
  get interrupt() {
    return this.pause ?? null;
  }

  set interrupt(value) {
    this.pause = value && typeof value === "object" ? decodePause(value) : null;
    this.chosen = null;
    this.recorded = false;
    if (this.isConnected) this.render();
  }

  /** Words for this element only, over the tables: `{ approve: "Charge it" }`. */
  get labels() {
    return this.ownWords ?? null;
  }

  set labels(value) {
    this.ownWords = value && typeof value === "object" ? { ...value } : null;
    if (this.isConnected) this.render();
  }

  get ownLabels() {
    return this.ownWords ?? null;
  }

  /** True (the default): one answer only; the buttons stay inert until reopen(). */
  get single() {
    return this.oneAnswer ?? true;
  }

  set single(value) {
    this.oneAnswer = Boolean(value);
  }

  /** The pause was answered: the card stays in the conversation, collapsed, with the decision
   * (`label`, as its button said it) and, once known, its outcome (a key: outcome_succeeded...). `others`:
   * the approvers answered it, not this page (a card that took no answers from here). */
  showAnswered(label, outcome, { others = false } = {}) {
    this.answered = { label: String(label ?? ""), outcome: outcome || this.answered?.outcome || null, others };
    if (this.isConnected) this.render();
  }

  /** The answered call's outcome, when it comes after the answer (over the stream). */
  showOutcome(outcome) {
    if (!this.answered || !outcome) return;
    this.answered.outcome = outcome;
    if (this.isConnected) this.render();
  }

  /** True where this page cannot answer: the pause's policy names a group (its staff answer, in the
   * console), or this page's approval is already recorded (the same person counts once). */
  get readOnly() {
    return Boolean(this.pause?.approvals?.group.length || this.recorded);
  }

  /** The pause's approvals changed (another approval came, over the stream): the count follows. */
  showApprovals(approvals) {
    if (!this.pause || !approvals || this.answered) return;
    this.pause.approvals = decodeApprovals(approvals);
    this.showApprovalLines();
  }

  /** This page's approval is recorded, short of the quorum (HTTP 202): the count follows, the card says
   * how many more it waits for and takes no more answers from here; it stays open. */
  showRecorded(approvals) {
    if (!this.pause) return;
    if (approvals) this.pause.approvals = decodeApprovals(approvals);
    this.recorded = true;
    this.chosen = null;
    this.showApprovalLines();
  }

  /** Take answers again (after the answer could not be sent). */
  reopen() {
    this.chosen = null;
    this.showChosen();
  }

  /** Move focus to the question itself (not to an answer, so a stray Enter decides nothing). */
  focusQuestion() {
    this.shadowRoot.querySelector(".card")?.focus();
  }

  render() {
    const p = this.pause;
    const root = this.shadowRoot;
    root.replaceChildren();
    if (!p) return;
    const titleId = uid("stalwart-title");
    const title = titleWord(p, (tool) => p.words || toolWords(tool));
    const titleText = title ? this.word(...title) : p.ask?.prompt || p.question;
    if (this.answered) {
      root.append(this.answeredCard(p, titleText));
      return;
    }
    const card = el("section", {
      part: "confirm", class: p.irreversible ? "card irreversible" : "card",
      role: "group", "aria-labelledby": titleId, tabindex: "-1",
    }, el("h2", { class: "title", id: titleId, part: title ? null : "wording" }, titleText));

    if (p.question && p.question !== titleText && p.kind !== "delegate") {
      card.append(el("p", { part: "wording" }, p.question));
    }
    if (p.turn) card.append(el("p", { part: "turn" }, `“${p.turn}”`));
    if (p.arguments.length) {
      card.append(el("div", { part: "arguments" }, el("h3", { class: "sub" }, this.word("argumentsTitle")), this.argumentList(p)));
    }
    const reasons = p.reasons.filter((r) => !SILENT_REASONS.has(r));
    if (reasons.length) {
      const items = reasons.map((r) => {
        const w = reasonWord(r);
        if (w && w[0] === "reason_argument_origin") w[1] = { name: argumentWords(p, w[1].name) };
        if (w && w[0] === "reason_tainted_call") w[1] = { tool: toolWords(w[1].tool) };
        if (w && w[0] === "reason_policy") w[1] = { name: toolWords(w[1].name) };
        return el("li", {}, w ? this.word(...w) : r);
      });
      card.append(el("div", { part: "reasons" }, el("h3", { class: "sub reasons-title" },
        // A card this page cannot answer waits for others, not for the person reading it.
        this.word(this.readOnly ? "reasonsTitleOthers" : "reasonsTitle")), el("ul", {}, ...items)));
    }
    if (p.irreversible) card.append(el("p", { part: "irreversible" }, this.word("irreversible")));
    if (p.approvals) card.append(el("div", { part: "approvals", class: "approvals", role: "status" }));
    if (!this.readOnly) card.append(this.choices(p, titleId));
    root.append(card);
    this.showApprovalLines();
    this.showChosen();
  }

  /** The approvals' lines, in place (the box is a live region: a new count is read out); the answers go
   * once this page may no longer give any. */
  showApprovalLines() {
    const card = this.shadowRoot.querySelector("section.card");
    if (!card || !this.pause) return;
    const box = card.querySelector("[part~=approvals]");
    if (box) {
      box.replaceChildren(...approvalLines(this.pause.approvals, { recorded: this.recorded, lang: this.language })
        .map(({ kind, key, params }) => el("p", { class: kind }, this.word(key, params))));
    }
    const heading = card.querySelector(".reasons-title");
    if (heading) heading.textContent = this.word(this.readOnly ? "reasonsTitleOthers" : "reasonsTitle");
    const choices = card.querySelector("[part~=choices]");
    if (choices && this.readOnly) {
      const hadFocus = choices.contains(this.shadowRoot.activeElement);
      choices.remove();
      if (hadFocus) this.focusQuestion();
    }
  }

  argumentList(p) {
    const list = el("dl");
    for (const arg of p.arguments) {
      const origin = originWord(arg.origin);
      list.append(el("div", { class: "row" },
        el("dt", {}, argumentWords(p, arg.name)),
        el("dd", {}, el("span", { class: "value" }, numberWords(arg.number, this.language, p.turn, arg.origin) ?? arg.value),
          origin || arg.origin ? el("span", { class: "origin" }, origin ? this.word(...origin) : arg.origin) : null)));
    }
    return list;
  }

  /** An answered pause, collapsed: its title, the decision and the outcome; the call on disclosure. */
  answeredCard(p, titleText) {
    const { label, outcome, others } = this.answered;
    const summary = el("summary", {},
      el("span", { class: "title" }, titleText),
      el("span", { class: "decision" }, this.word(others ? "othersChose" : "youChose", { answer: label })),
      outcome ? el("span", { class: `outcome ${outcome}` }, this.word(outcome)) : null);
    const box = el("details", { part: "confirm", class: "card answered" }, summary);
    if (p.arguments.length) box.append(el("div", { part: "arguments" }, this.argumentList(p)));
    return box;
  }

  choices(p, titleId) {
    const box = el("div", { part: "choices", role: "group", "aria-labelledby": titleId });
    if (p.kind === "ask" && p.ask?.kind === "choice" && p.ask.choices.length) {
      p.ask.choices.forEach((choice, index) => {
        box.append(this.button(choice, false, () => this.choose("answer", { kind: "choice", index }, choice)));
      });
    } else if (p.kind === "ask") {
      const input = el("input", { type: "text", "aria-labelledby": titleId, autocomplete: "off", enterkeyhint: "send" });
      const form = el("form", {}, input, el("button", { type: "submit", class: "primary" }, this.word("send")));
      form.addEventListener("submit", (event) => {
        event.preventDefault();
        const text = input.value.trim();
        if (text) this.choose("answer", { kind: "open", text }, text);
        else input.focus();
      });
      box.append(form);
    } else {
      for (const decision of p.choices) {
        const key = answerKey(p.kind, decision);
        const label = key ? this.word(key) : decision.replace(/_/g, " ");
        box.append(this.button(label, PRIMARY.has(decision) || (p.kind === "delegate" && decision === "approve"),
          () => this.choose(decision, undefined, label)));
      }
    }
    box.append(el("span", { class: "pending", role: "status" }));
    return box;
  }

  button(label, primary, action) {
    const b = el("button", { type: "button", class: primary ? "primary" : null }, label);
    b.addEventListener("click", action);
    return b;
  }

  choose(decision, answer, label) {
    const p = this.pause;
    if (!p || (this.single && this.chosen)) return;
    this.chosen = { decision, label };
    this.showChosen();
    const detail = { interrupt: p.id, decision, token: p.token, label, pause: p };
    if (answer !== undefined) detail.answer = answer;
    this.dispatchEvent(new CustomEvent("stalwart-decision", { bubbles: true, composed: true, detail }));
  }

  /** While an answer is on its way the buttons are inert (aria-disabled keeps focus where it is). */
  showChosen() {
    const busy = Boolean(this.single && this.chosen);
    for (const control of this.shadowRoot.querySelectorAll("[part~=choices] button, [part~=choices] input")) {
      if (busy) control.setAttribute("aria-disabled", "true");
      else control.removeAttribute("aria-disabled");
    }
    const pending = this.shadowRoot.querySelector(".pending");
    if (pending) pending.textContent = busy ? this.word("sending") : "";
  }
}
