// @stalwart-agents/agent-ui: the entry module (the one GET / loads).
// Importing it defines the five elements of docs/widget.md; it also exports
// setStrings and the element classes for pages that extend them.
import { StalwartChatElement } from "./stalwart-chat.js";
import { StalwartConfirmElement } from "./stalwart-confirm.js";
import { StalwartDecisionElement } from "./stalwart-decision.js";
import { StalwartRollbackElement } from "./stalwart-rollback.js";
import { StalwartTraceElement } from "./stalwart-trace.js";

export { LANGUAGES, resetStrings, setStrings } from "./lib/strings.js";
export { StalwartChatElement, StalwartConfirmElement, StalwartDecisionElement, StalwartRollbackElement, StalwartTraceElement };

const ELEMENTS = {
  "stalwart-confirm": StalwartConfirmElement,
  "stalwart-decision": StalwartDecisionElement,
  "stalwart-rollback": StalwartRollbackElement,
  "stalwart-trace": StalwartTraceElement,
  "stalwart-chat": StalwartChatElement,
};

// A second copy of the module (another version on the same page) leaves the
// first one's elements in place rather than throwing.
for (const [name, element] of Object.entries(ELEMENTS)) {
  if (!customElements.get(name)) customElements.define(name, element);
}
