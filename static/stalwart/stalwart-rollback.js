// <stalwart-rollback>: what a run undid, what could not be undone, and what
// is still to undo (the rollback report of docs/http-api.md: {undone, not_undoable, stuck}).
import { StalwartElement, el, uid } from "./base.js";
import { ROLLBACK } from "./styles.js";
import { decodeRollback } from "./lib/wire.js";
import { capitalise, toolWords } from "./lib/words.js";

export class StalwartRollbackElement extends StalwartElement {
  static styles = ROLLBACK;
  static properties = ["report"];
  static observedAttributes = ["lang"];

  /** The rollback report, or null. */
  get report() {
    return this.shown ?? null;
  }

  set report(value) {
    this.shown = decodeRollback(value);
    if (this.isConnected) this.render();
  }

  render() {
    const root = this.shadowRoot;
    root.replaceChildren();
    const report = this.shown;
    if (!report) return;
    const titleId = uid("stalwart-rollback");
    const card = el("section", { part: "rollback", class: "card", role: "group", "aria-labelledby": titleId },
      el("h2", { class: "title", id: titleId }, this.word("rollbackTitle")));
    const groups = [["undone", "undone"], ["not_undoable", "notUndoable"], ["stuck", "stillToUndo"]];
    for (const [field, key] of groups) {
      if (!report[field].length) continue;
      const items = report[field].map((entry) => el("li", {},
        entry.step !== null ? el("span", { class: "step" }, this.word("step", { step: entry.step })) : null,
        // Tools named in words for people ("Charge card", "undone with refund card"), never raw names.
        el("span", { class: "tool" }, capitalise(toolWords(entry.tool))),
        entry.undo ? " " : null,
        entry.undo ? el("span", { class: "undo" }, this.word("undoneWith", { undo: toolWords(entry.undo) })) : null));
      card.append(el("section", {}, el("h3", { class: "sub" }, this.word(key)), el("ul", {}, ...items)));
    }
    root.append(card);
  }
}
