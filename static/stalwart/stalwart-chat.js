// <stalwart-chat>: the conversation and what waits (SPEC §13), first version.
// Talks to `base` only; renders every value with textContent.
import { formatValue, originWords, resumeBody } from "./lib/wire.js";

const SESSION = "Stalwart-Session";

export class StalwartChatElement extends HTMLElement {
  connectedCallback() {
    this.base = (this.getAttribute("base") || "").replace(/\/$/, "");
    this.thread = this.getAttribute("thread") || sessionStorage.getItem("stalwart-thread") ||
      `u-${crypto.getRandomValues(new Uint32Array(2)).join("")}`;
    sessionStorage.setItem("stalwart-thread", this.thread);
    this.session = sessionStorage.getItem("stalwart-session") || "";
    this.controller = new AbortController();
    this.render();
    this.loadConfig();
  }

  disconnectedCallback() {
    this.controller?.abort();
  }

  render() {
    this.replaceChildren();
    const header = this.make("header", { part: "header" });
    this.title = this.make("h1", {});
    header.append(this.title);
    this.log = this.make("div", { part: "log", role: "log", "aria-live": "polite" });
    this.status = this.make("div", { part: "status", role: "status" });
    const form = this.make("form", { part: "composer" });
    const label = this.make("label", { for: "stalwart-text" }, "Message");
    this.input = this.make("input", { id: "stalwart-text", autocomplete: "off", required: "" });
    const send = this.make("button", { type: "submit" }, "Send");
    form.append(label, this.input, send);
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      this.sendTurn(this.input.value);
      this.input.value = "";
    });
    this.append(header, this.log, this.status, form);
  }

  make(tag, attrs, text) {
    const el = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
    if (text !== undefined) el.textContent = text;
    return el;
  }

  async request(method, path, body) {
    const headers = { "Content-Type": "application/json" };
    if (this.session) headers[SESSION] = this.session;
    const response = await fetch(this.base + path, {
      method, headers, body: body ? JSON.stringify(body) : undefined, signal: this.controller.signal,
    });
    const session = response.headers.get(SESSION);
    if (session) {
      this.session = session;
      sessionStorage.setItem("stalwart-session", session);
    }
    return { status: response.status, data: await response.json() };
  }

  async loadConfig() {
    const { data } = await this.request("GET", "/config.json");
    this.title.textContent = data.name || "";
    this.say("assistant", data.purpose || "");
  }

  say(who, text) {
    if (!text) return;
    const line = this.make("p", { class: who }, text);
    this.log.append(line);
    line.scrollIntoView({ block: "end" });
  }

  async sendTurn(text) {
    if (!text.trim()) return;
    this.say("person", text);
    this.show(await this.request("POST", `/threads/${encodeURIComponent(this.thread)}/messages`, { text }));
  }

  async answer(pause, decision, answer) {
    const path = `/threads/${encodeURIComponent(this.thread)}/resume`;
    this.show(await this.request("POST", path, resumeBody(pause, decision, answer)));
  }

  show({ status, data }) {
    this.status.textContent = "";
    if (status >= 400) {
      this.status.textContent = data.detail || data.error || String(status);
      if (data.waiting) this.showWaiting(data.waiting);
      return;
    }
    this.say("assistant", data.reply?.text);
    this.showWaiting(data.waiting || []);
  }

  showWaiting(waiting) {
    this.querySelectorAll(".pause").forEach((el) => el.remove());
    for (const pause of waiting) this.log.append(this.pauseCard(pause));
  }

  pauseCard(pause) {
    const card = this.make("section", { class: "pause", part: "steps", "aria-label": pause.question });
    card.append(this.make("h2", {}, pause.question));
    const list = this.make("dl", {});
    for (const arg of pause.arguments || []) {
      list.append(this.make("dt", {}, arg.name));
      list.append(this.make("dd", {}, `${formatValue(arg.value)} (${originWords(arg.origin)})`));
    }
    card.append(list);
    if (pause.reasons?.length) card.append(this.make("p", { class: "reasons" }, pause.reasons.join(", ")));
    if (pause.irreversible) card.append(this.make("p", { class: "warn" }, "This cannot be undone."));
    if (pause.kind === "ask") {
      const input = this.make("input", { "aria-label": pause.question });
      const button = this.make("button", { type: "button" }, "Answer");
      button.addEventListener("click", () => this.answer(pause, "answer", { kind: "open", text: input.value }));
      if (pause.ask?.kind === "choice") {
        pause.ask.choices.forEach((choice, index) => {
          const b = this.make("button", { type: "button" }, choice);
          b.addEventListener("click", () => this.answer(pause, "answer", { kind: "choice", index }));
          card.append(b);
        });
      } else {
        card.append(input, button);
      }
      return card;
    }
    for (const choice of pause.choices || []) {
      const b = this.make("button", { type: "button" }, choice.replace(/_/g, " "));
      b.addEventListener("click", () => this.answer(pause, choice));
      card.append(b);
    }
    return card;
  }
}

if (!customElements.get("stalwart-chat")) customElements.define("stalwart-chat", StalwartChatElement);
