// <stalwart-trace>: a thread's steps for staff, as its events report them
// (the stream of docs/http-api.md: {id, type, data}), oldest first.
import { StalwartElement, el, uid } from "./base.js";
import { TRACE } from "./styles.js";
import { formatValue } from "./lib/wire.js";

export class StalwartTraceElement extends StalwartElement {
  static styles = TRACE;
  static properties = ["events"];
  static observedAttributes = ["lang"];

  /** The events to show: [{id, type, data}]. */
  get events() {
    return this.shown ?? [];
  }

  set events(value) {
    this.shown = Array.isArray(value) ? value.filter((e) => e && typeof e === "object") : [];
    if (this.isConnected) this.render();
  }

  render() {
    const root = this.shadowRoot;
    root.replaceChildren();
    const titleId = uid("stalwart-trace");
    const list = el("ol");
    for (const event of this.events) {
      list.append(el("li", {},
        event.id === null || event.id === undefined ? null : el("span", { class: "id" }, `#${event.id}`),
        el("span", { class: "type" }, String(event.type ?? "")),
        el("span", { class: "what" }, this.summary(event.data || {}))));
    }
    root.append(el("section", { part: "trace", class: "card", role: "group", "aria-labelledby": titleId },
      el("h2", { class: "title", id: titleId }, this.word("traceTitle")), list));
  }

  summary(data) {
    const parts = [];
    if (typeof data.step === "number") parts.push(this.word("step", { step: data.step }));
    for (const field of ["tool", "status", "decision", "rule", "text", "interrupt", "kind"]) {
      if (data[field] !== undefined && data[field] !== null && data[field] !== "") parts.push(formatValue(data[field]));
    }
    return parts.join(" · ");
  }
}
