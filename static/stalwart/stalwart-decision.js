// <stalwart-decision>: a refusal in one sentence, with its rule on disclosure
// (shown outright to staff), and whom to ask where the page says.
import { StalwartElement, el, uid } from "./base.js";
import { DECISION } from "./styles.js";

export class StalwartDecisionElement extends StalwartElement {
  static styles = DECISION;
  static observedAttributes = ["contact", "contact-name", "rule", "sentence", "staff", "lang"];

  render() {
    const root = this.shadowRoot;
    root.replaceChildren();
    const headId = uid("stalwart-refused");
    const card = el("section", { part: "decision", class: "card", role: "group", "aria-labelledby": headId },
      el("p", { class: "head", id: headId }, this.word("refused")));
    const sentence = this.getAttribute("sentence");
    if (sentence) card.append(el("p", { class: "sentence" }, sentence));
    const rule = this.getAttribute("rule");
    if (rule) {
      const line = el("p", { part: "rule" }, el("span", {}, this.word("rule")), " ", el("code", {}, rule));
      card.append(this.hasAttribute("staff") ? line : el("details", {}, el("summary", {}, this.word("showRule")), line));
    }
    const contact = this.getAttribute("contact");
    if (contact) {
      const name = this.getAttribute("contact-name") || contact;
      card.append(el("p", { part: "contact" }, this.word("contact", { name, contact })));
    }
    root.append(card);
  }
}
