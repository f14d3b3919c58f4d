// <stalwart-chat>: the conversation and what waits (docs/widget.md, "<stalwart-chat>"; docs/http-api.md).
//
// Talks to `base` and nothing else. A turn is POST /threads/{id}/messages;
// its answer carries the reply, what waits (one <stalwart-confirm> each),
// refusals (<stalwart-decision>) and any rollback (<stalwart-rollback>). An
// answer to a pause is POST /threads/{id}/resume. After a reload the open
// pauses come back from GET /threads/{id}/interrupts. Where the server has
// GET /threads/{id}/stream, the chat follows it too and reconnects with
// Last-Event-ID; without it, the answers alone carry everything. Both paths
// may tell the same thing: replies, pauses and refusals are shown once, by id.
//
// Under an approval policy (docs/widget.md, "Approvals"), an approval short of
// the quorum is answered 202 `approval_recorded`: the card stays open, says how
// many more it waits for and takes no more answers from this page; `approval`
// events on the stream move its count, `answered` closes it as for any pause.
//
// The Stalwart-Session header the server hands out is kept in localStorage per
// base, with the thread id, so a reload finds the same thread.
import { StalwartElement, el, uid } from "./base.js";
import { CHAT } from "./styles.js";
import { languageOf } from "./lib/strings.js";
import { SSEParser } from "./lib/sse.js";
import { answerKey, outcomeKey } from "./lib/words.js";
import {
  decodeAnswer, decodeApprovals, decodeError, decodeEvent, decodePause, decodeRefusal, decodeRollback, newThreadId,
  replyWithout,
} from "./lib/wire.js";

const SESSION = "Stalwart-Session";
const STREAM_TYPES = ["turn", "step", "waiting", "approval", "answered", "refused", "reply", "rollback"];
const EXPORTS = {
  "stalwart-confirm": "confirm, wording, turn, arguments, reasons, irreversible, approvals, choices",
  "stalwart-decision": "decision, contact, rule",
  "stalwart-rollback": "rollback",
  "stalwart-trace": "trace",
};
const READY_MARK = "stalwart:composer-ready";

/** The answer to an approval short of its policy's quorum (HTTP 202): a success, the pause still open. */
function approvalRecorded(res) {
  return res.ok && res.status === 202 && res.data?.status === "approval_recorded";
}

function sleep(ms, signal) {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => { clearTimeout(timer); resolve(); }, { once: true });
  });
}

export class StalwartChatElement extends StalwartElement {
  static styles = CHAT;
  static properties = ["bot", "eventSource", "fetcher"];
  static observedAttributes = ["base", "thread", "language", "staff", "thumbs"];

  /** The words' language: the `language` attribute, else the agent's (from /config.json), else English. */
  get language() {
    return languageOf(this.getAttribute("language")) || languageOf(this.config?.language) || "en";
  }

  /** What /config.json said (name, purpose, language, can...); set it to skip that request. */
  get bot() {
    return this.config ?? null;
  }

  set bot(value) {
    this.config = value && typeof value === "object" ? value : null;
    if (this.frame) this.showBot();
  }

  /** The fetch used for every request (default: the window's fetch). */
  get fetcher() {
    return this.fetchFn ?? null;
  }

  set fetcher(value) {
    this.fetchFn = typeof value === "function" ? value : null;
  }

  /**
   * A factory for the thread's event stream, `(url, {headers, lastEventId}) =>
   * an EventSource-like object` (addEventListener, close); by default the chat
   * reads the stream with fetch, which can send the Stalwart-Session header.
   */
  get eventSource() {
    return this.sourceFn ?? null;
  }

  set eventSource(value) {
    this.sourceFn = typeof value === "function" ? value : null;
  }

  // --- life cycle -----------------------------------------------------------------

  setUp() {
    this.controller = new AbortController();
    this.bindings = [];
    this.base = (this.getAttribute("base") || "").replace(/\/+$/, "");
    this.session = this.load("session");
    const given = this.getAttribute("thread");
    this.threadId = given || this.load("thread");
    this.threadKnown = Boolean(this.threadId);
    if (!this.threadId) this.threadId = newThreadId();
    this.shown = { messages: new Set(), pauses: new Map(), refusals: new Set(), rollbacks: new Set() };
    this.answered = new Map();  // pause id -> its card, kept collapsed in the conversation
    this.pending = [];
    this.sentences = new Map();
    this.events = [];
    this.stepsByRun = new Map();
    this.run = "";
    this.lastTurn = "";
    this.lastEventId = null;
    this.stream = "unknown";
    this.reconnecting = false;
    this.busy = 0;
    this.languageKnown = Boolean(this.getAttribute("language") || this.config);
    this.build();
    this.start();
  }

  tearDown() {
    this.resizes?.disconnect();
    this.controller?.abort();
    this.source?.close?.();
    this.source = null;
    this.shadowRoot.replaceChildren();
    this.frame = null;
  }

  attributeChanged(name) {
    if (name === "base" || name === "thread") {
      this.tearDown();
      this.setUp();
    } else if (name === "language") {
      this.languageKnown = true;
      this.showWords();
    } else {
      this.showExtras();
    }
  }

  async start() {
    if (this.languageKnown) this.showReady();
    if (!this.config) {
      const asked = this.getAttribute("language");
      const res = await this.request("GET", asked ? `/config.json?language=${encodeURIComponent(asked)}` : "/config.json");
      if (res.aborted) return;
      if (res.ok) {
        this.config = res.data && typeof res.data === "object" ? res.data : {};
      } else {
        this.config = {};
        this.showError(res.error, () => this.reload());
      }
    }
    this.languageKnown = true;
    this.showBot();
    this.showWords();
    this.showReady();
    if (this.threadKnown) await this.loadWaiting();
  }

  reload() {
    this.config = null;
    this.tearDown();
    this.setUp();
  }

  // --- storage ----------------------------------------------------------------------

  storageKey(name) {
    let where = this.base;
    try {
      where = new URL(this.base || "/", document.baseURI).href;
    } catch { /* a base that is no URL: keep it as written */ }
    return `stalwart:${name}:${where}`;
  }

  load(name) {
    try {
      return localStorage.getItem(this.storageKey(name)) || "";
    } catch {
      return "";
    }
  }

  save(name, value) {
    try {
      localStorage.setItem(this.storageKey(name), value);
    } catch { /* storage refused (a sandboxed frame): this page's memory is enough */ }
  }

  // --- the frame ----------------------------------------------------------------------

  /** Set a node's text (or an attribute) to a keyed word, and keep it so when words change. */
  bind(node, key, params, attr) {
    this.bindings.push({ node, key, params, attr });
    this.apply(this.bindings[this.bindings.length - 1]);
    return node;
  }

  apply({ node, key, params, attr }) {
    const text = this.languageKnown ? this.word(key, typeof params === "function" ? params() : params) : "";
    if (attr) node.setAttribute(attr, text);
    else node.textContent = text;
  }

  showWords() {
    if (!this.frame) return;
    this.bindings = this.bindings.filter((b) => b.node.isConnected || b.keep);
    for (const b of this.bindings) this.apply(b);
    const lang = this.language;
    this.frame.setAttribute("lang", lang);
    for (const node of this.shadowRoot.querySelectorAll(Object.keys(EXPORTS).join(","))) node.setAttribute("lang", lang);
  }

  build() {
    const textId = uid("stalwart-text");
    this.name = el("h1");
    this.greeting = el("p", { part: "greeting" });
    this.can = el("details", { part: "can", hidden: true });
    this.log = el("div", { part: "log", class: "log", role: "log", "aria-live": "polite", "aria-relevant": "additions" });
    this.bind(this.log, "conversation", null, "aria-label");
    this.scroller = el("div", { class: "scroller" }, this.greeting, this.can, this.log);
    this.typing = el("div", { part: "typing", role: "status", hidden: true },
      el("span", { class: "dots", "aria-hidden": "true" }, el("i"), el("i"), el("i")), this.bind(el("span"), "writing"));
    this.status = el("div", { part: "status", role: "status" });
    this.input = el("textarea", { id: textId, rows: "1", autocomplete: "off", disabled: true, enterkeyhint: "send" });
    this.bind(this.input, "placeholder", null, "placeholder");
    this.sendButton = el("button", { type: "submit", class: "primary", disabled: true });
    this.bind(this.sendButton, "send");
    const label = this.bind(el("label", { for: textId, class: "sr-only" }), "placeholder");
    this.composer = el("form", { part: "composer" }, label, this.input, this.sendButton);
    this.composer.addEventListener("submit", (event) => {
      event.preventDefault();
      this.sendTurn(this.input.value);
    });
    this.input.addEventListener("keydown", (event) => {
      if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
        event.preventDefault();
        this.composer.requestSubmit();
      }
    });
    this.correcting = this.bind(el("p", { class: "correcting", hidden: true }), "correcting");
    this.thumbsNotice = el("div", { part: "thumbs-notice", role: "status", hidden: true });
    this.privacy = el("p", { class: "privacy" });
    this.trace = el("stalwart-trace", { exportparts: EXPORTS["stalwart-trace"] });
    this.steps = el("div", { part: "steps", hidden: true }, this.trace);
    this.frame = el("div", { class: "frame" },
      el("header", { part: "header" }, this.name, el("slot", { name: "header" })),
      this.scroller, this.typing, this.status, this.composer,
      el("div", { class: "foot" }, this.correcting, this.thumbsNotice, el("slot", { name: "footer" }), this.privacy),
      this.steps);
    this.shadowRoot.addEventListener("stalwart-decision", (event) => this.sendDecision(event));
    this.shadowRoot.append(this.frame);
    // Read at the bottom, the conversation stays at the bottom when it or the window changes size
    // (a card opening its details, a notice below the composer); scrolled up, it stays put.
    this.atBottom = true;
    this.scroller.addEventListener("scroll", () => {
      const s = this.scroller;
      this.atBottom = s.scrollHeight - s.scrollTop - s.clientHeight < 24;
    }, { passive: true });
    this.resizes = new ResizeObserver(() => { if (this.atBottom) this.scrollDown(); });
    this.resizes.observe(this.scroller);
    this.resizes.observe(this.log);
    this.showExtras();
    this.showWords();
  }

  showReady() {
    if (!this.frame || !this.input.disabled) return;
    this.input.disabled = false;
    this.sendButton.disabled = false;
    if (globalThis.performance?.mark && !performance.getEntriesByName(READY_MARK).length) performance.mark(READY_MARK);
  }

  showBot() {
    const bot = this.config || {};
    const name = typeof bot.name === "string" ? bot.name : "";
    this.name.textContent = name;
    this.bindings = this.bindings.filter((b) => b.node !== this.greeting && b.node !== this.privacy);
    if (typeof bot.greeting === "string" && bot.greeting) this.greeting.textContent = bot.greeting;
    else if (name) this.bind(this.greeting, "greeting", { name, purpose: typeof bot.purpose === "string" ? bot.purpose : "" });
    if (name) this.bind(this.privacy, "privacyLine", { name });
    this.showCan(Array.isArray(bot.can) ? bot.can : []);
  }

  showCan(can) {
    this.can.replaceChildren();
    const items = can.filter((c) => c && typeof c === "object" && (c.words || c.tool));
    this.can.hidden = !items.length;
    if (!items.length) return;
    const list = el("ul");
    for (const c of items) {
      const words = String(c.words || c.tool);
      const nameId = uid("stalwart-can");
      const tryIt = this.bind(el("button", { type: "button", "aria-describedby": nameId }), "tryIt");
      tryIt.addEventListener("click", () => {
        this.input.value = `${words} `;
        this.input.focus();
      });
      list.append(el("li", {},
        el("span", { class: "tool", id: nameId }, words),
        c.kind === "write" ? this.bind(el("span", { class: "badge" }), "asksFirst") : null,
        c.description ? el("span", { class: "desc" }, String(c.description)) : null,
        tryIt));
    }
    this.can.append(this.bind(el("summary"), "canTitle"), list);
  }

  /** What the staff and thumbs attributes switch on. */
  showExtras() {
    if (!this.frame) return;
    const staff = this.hasAttribute("staff");
    this.steps.hidden = !staff;
    if (staff) this.showTrace();
    for (const d of this.shadowRoot.querySelectorAll("stalwart-decision")) d.toggleAttribute("staff", staff);
    const thumbs = this.hasAttribute("thumbs");
    this.thumbsNotice.hidden = !thumbs;
    if (thumbs && !this.thumbsNotice.childNodes.length) {
      this.thumbsNotice.append(this.bind(el("p"), "thumbsNotice"));
    }
  }

  showStatus() {
    if (!this.frame) return;
    const waiting = this.shown.pauses.size > 0;
    this.correcting.hidden = !waiting;
    this.bindings = this.bindings.filter((b) => b.node !== this.status);
    // Where every card waits for other people (a policy's group, or this page's approval already in).
    const others = waiting && [...this.shown.pauses.values()].every((card) => card.readOnly);
    if (this.reconnecting) this.bind(this.status, "reconnecting");
    else if (others) this.bind(this.status, "waitingOthers");
    else if (waiting) this.bind(this.status, "waiting");
    else this.status.textContent = "";
  }

  setBusy(delta) {
    this.busy += delta;
    if (this.typing) this.typing.hidden = this.busy <= 0;
    if (delta > 0) this.scrollDown();
  }

  scrollDown() {
    const s = this.scroller;
    if (s) s.scrollTop = s.scrollHeight;
  }

  add(node) {
    this.log.append(node);
    this.atBottom = true;
    this.scrollDown();
    return node;
  }

  focusInside() {
    return this.shadowRoot.activeElement !== null;
  }

  // --- talking to base ----------------------------------------------------------------

  headers(extra) {
    const headers = { Accept: "application/json", ...extra };
    if (this.session) headers[SESSION] = this.session;
    const context = this.getAttribute("context-token");
    if (context) headers["Stalwart-Context"] = context;
    return headers;
  }

  fetchNow(url, init) {
    const f = this.fetchFn || globalThis.fetch.bind(globalThis);
    return f(url, { ...init, signal: this.controller.signal });
  }

  keepSession(response) {
    const session = response.headers.get(SESSION);
    if (session && session !== this.session) {
      this.session = session;
      this.save("session", session);
    }
  }

  /** One request: {ok, status, data, error}; a network failure is status 0. */
  async request(method, path, body, headers) {
    let response;
    try {
      response = await this.fetchNow(this.base + path, {
        method,
        headers: this.headers(body === undefined ? headers : { "Content-Type": "application/json", ...headers }),
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    } catch (error) {
      if (this.controller.signal.aborted) return { ok: false, aborted: true };
      return { ok: false, status: 0, data: null, error: decodeError(0, null, error?.message || String(error)) };
    }
    this.keepSession(response);
    let data = null;
    try {
      data = await response.json();
    } catch { /* not JSON: the status says enough */ }
    if (response.ok) return { ok: true, status: response.status, data };
    return { ok: false, status: response.status, data, error: decodeError(response.status, data) };
  }

  thread(path) {
    return `/threads/${encodeURIComponent(this.threadId)}/${path}`;
  }

  async loadWaiting() {
    const res = await this.request("GET", this.thread("interrupts"));
    if (res.aborted) return;
    if (res.ok) {
      this.syncWaiting(decodeAnswer(res.data).waiting, false);
      this.follow();
    } else if (res.status === 404) {
      // This session never opened that thread (or the server forgot it): start a new one.
      this.threadKnown = false;
      if (!this.getAttribute("thread")) this.threadId = newThreadId();
    } else {
      this.showError(res.error, () => this.loadWaiting());
    }
  }

  /** Send, show the answer or the error (with a retry that sends the very same request). */
  async exchange(method, path, body, headers) {
    this.setBusy(1);
    const res = await this.request(method, path, body, headers);
    if (res.aborted) return res;
    this.setBusy(-1);
    if (approvalRecorded(res)) {
      this.follow();  // the answer carries no answer of a run: the card that asked shows it (sendDecision)
    } else if (res.ok) {
      if (!this.threadKnown && !this.getAttribute("thread")) this.save("thread", this.threadId);
      this.threadKnown = true;
      this.showAnswer(decodeAnswer(res.data));
      this.follow();
    } else if (res.status === 409 && res.data && Array.isArray(res.data.waiting)) {
      this.showNote("stale");
      this.syncWaiting(decodeAnswer(res.data).waiting);
    } else {
      this.showError(res.error, () => this.exchange(method, path, body, headers));
    }
    return res;
  }

  sendTurn(value) {
    const text = String(value || "").trim();
    if (!text || this.input.disabled) return;
    this.input.value = "";
    this.pending.push(text);
    this.lastTurn = text;
    this.add(el("p", { class: "msg person" }, text));
    const key = newThreadId().slice(2);
    this.exchange("POST", this.thread("messages"), { text, language: this.language }, { "Idempotency-Key": key });
  }

  async sendDecision(event) {
    const card = event.target;
    const detail = event.detail || {};
    if (!card || !detail.interrupt) return;
    const hadFocus = this.shadowRoot.activeElement === card;
    card.answering = true;
    const body = { interrupt_id: detail.interrupt, decision: detail.decision, token: detail.token };
    if (detail.answer !== undefined) body.answer = detail.answer;
    // The console's decisions page says the answer came from the widget (not some other HTTP client).
    const res = await this.exchange("POST", this.thread("resume"), body, { "Stalwart-Client": "widget" });
    if (res.aborted) return;
    card.answering = false;
    if (approvalRecorded(res)) {
      // Recorded, short of the quorum: the card stays open, with the count and how many more it waits for.
      if (this.shown.pauses.get(detail.interrupt) === card) card.showRecorded?.(res.data.approvals);
      this.showStatus();
    } else if (res.ok) {
      // The card stays where it was, collapsed: what was asked, the decision and its outcome.
      this.shown.pauses.delete(detail.interrupt);
      const open = detail.answer?.kind === "open";
      this.keepAnswered(card, open ? detail.answer.text : detail.label || detail.decision,
        this.outcomeIn(decodeAnswer(res.data).steps, card.interrupt));
      this.showStatus();
      if (hadFocus && !this.shadowRoot.activeElement) this.input.focus();
    } else if (res.status === 409 && Array.isArray(res.data?.waiting)) {
      // Someone (another tab, the console) answered first: this card goes unless it still waits.
      this.syncWaiting(decodeAnswer(res.data).waiting, false);
      if (this.shown.pauses.get(detail.interrupt) === card) card.reopen?.();
      else if (hadFocus && !this.shadowRoot.activeElement) this.input.focus();
    } else if (this.shown.pauses.get(detail.interrupt) === card) {
      card.reopen?.();
    }
  }

  async sendThumb(message, thumb, pressed, other) {
    const before = [pressed.getAttribute("aria-pressed"), other.getAttribute("aria-pressed")];
    pressed.setAttribute("aria-pressed", "true");
    other.setAttribute("aria-pressed", "false");
    const res = await this.request("POST", this.thread("feedback"), { message, thumb });
    if (res.aborted || res.ok) return;
    pressed.setAttribute("aria-pressed", before[0]);
    other.setAttribute("aria-pressed", before[1]);
    this.thumbsNotice.hidden = false;
    if (!this.thumbsNotice.querySelector(".failed")) this.thumbsNotice.append(this.bind(el("p", { class: "failed" }), "thumbsFailed"));
  }

  // --- showing what the run reports ----------------------------------------------------

  showAnswer(answer) {
    if (answer.run) this.run = answer.run;
    const sentences = answer.refusals.map((r) => r.sentence);
    if (answer.run) this.sentences.set(answer.run, sentences);
    if (answer.reply) this.showReply(answer.reply, sentences, answer.run || this.run);
    for (const refusal of answer.refusals) this.showRefusal(refusal, answer.run);
    this.syncWaiting(answer.waiting);
    if (answer.reply) {
      // This answer's reply is already above the cards it brought.
      for (const card of this.shown.pauses.values()) if (card.run === answer.run) card.replied = true;
    }
    if (answer.rollback) this.showRollback(answer.rollback, answer.run);
    if (answer.run && answer.steps.length) {
      this.stepsByRun.set(answer.run, answer.steps);
      this.showTrace();
    }
  }

  showReply(reply, sentences, run = this.run) {
    if (reply.id) {
      if (this.shown.messages.has(reply.id)) return;
      this.shown.messages.add(reply.id);
    }
    const text = replyWithout(reply.text, sentences);
    if (!text) return;
    const said = el("div", { class: "said" }, el("p", { class: "msg bot" }, text));
    for (const [part, items] of [["sources", reply.sources], ["citations", reply.citations]]) {
      if (!items?.length) continue;
      said.append(el("div", { part }, part === "sources" ? this.bind(el("p"), "sources") : null,
        el("ul", {}, ...items.map((item) => el("li", {}, item)))));
    }
    if (this.hasAttribute("thumbs") && reply.id) {
      const up = this.bind(el("button", { type: "button", "aria-pressed": "false" }), "thumbUp");
      const down = this.bind(el("button", { type: "button", "aria-pressed": "false" }), "thumbDown");
      up.addEventListener("click", () => this.sendThumb(reply.id, "up", up, down));
      down.addEventListener("click", () => this.sendThumb(reply.id, "down", down, up));
      said.append(el("div", { part: "thumbs" }, up, down));
    }
    // The stream may show a run's pause before the reply that says it waits: the reply was said
    // first, so it goes above the run's cards that no reply has come after yet.
    const cards = this.unreplied(run);
    for (const c of cards) c.replied = true;
    this.addBefore(said, cards);
  }

  /** The run's cards shown before any reply of it (after a reload, or from the stream). */
  unreplied(run) {
    if (!run) return [];
    return [...this.shown.pauses.values()].filter((c) => !c.replied && c.run === run && c.isConnected);
  }

  /** Add `node` to the conversation above the first of `cards`, or at the end. */
  addBefore(node, cards) {
    if (!cards.length) return this.add(node);
    cards[0].before(node);
    this.scrollDown();
    return node;
  }

  showRefusal(refusal, run) {
    const key = `${run}:${refusal.step ?? refusal.tool}:${refusal.rule}`;
    if (this.shown.refusals.has(key)) return;
    this.shown.refusals.add(key);
    const name = typeof this.config?.name === "string" ? this.config.name : "";
    const contact = typeof this.config?.contact === "string" ? this.config.contact : "";
    this.add(el("stalwart-decision", {
      lang: this.language, exportparts: EXPORTS["stalwart-decision"], sentence: refusal.sentence || null,
      rule: refusal.rule || null, staff: this.hasAttribute("staff"), contact: contact || null,
      "contact-name": contact ? name : null,
    }));
  }

  showRollback(report, run) {
    if (run) {
      if (this.shown.rollbacks.has(run)) return;
      this.shown.rollbacks.add(run);
    }
    const node = el("stalwart-rollback", { lang: this.language, exportparts: EXPORTS["stalwart-rollback"] });
    node.report = report;
    this.add(node);
  }

  /** Show the thread's open pauses: new ones added, closed ones taken away. */
  syncWaiting(waiting, focus = true) {
    const open = new Set(waiting.map((p) => p.id));
    for (const [id, card] of this.shown.pauses) {
      if (!open.has(id) && !card.answering) {
        card.remove();
        this.shown.pauses.delete(id);
      }
    }
    let first = null;
    for (const pause of waiting) {
      const shown = this.shown.pauses.get(pause.id);
      if (shown && pause.approvals) {
        // Newer approvals (a later answer, without a stream): the count follows.
        if (this.approvedHere(pause)) shown.showRecorded(pause.approvals);
        else shown.showApprovals(pause.approvals);
      }
      if (!pause.id || shown) continue;
      const card = this.showPause(pause);
      first = first || card;
    }
    this.showStatus();
    if (first && focus && this.focusInside()) first.focusQuestion();
  }

  showPause(pause) {
    const card = el("stalwart-confirm", { lang: this.language, exportparts: EXPORTS["stalwart-confirm"] });
    const can = Array.isArray(this.config?.can) ? this.config.can : [];
    const words = can.find((c) => c && c.tool === pause.tool)?.words;
    // The turn that led to it, where this page saw it (not after a reload).
    card.interrupt = { ...pause, words: typeof words === "string" ? words : "", turn: pause.turn || this.lastTurn || "" };
    // Not replied yet: the run's reply ("… waits for your approval") goes above it when it comes.
    card.run = pause.run || this.run;
    card.replied = false;
    // This page's approval is in (given through the widget: a session answers only its own threads).
    if (this.approvedHere(pause)) card.showRecorded(pause.approvals);
    this.shown.pauses.set(pause.id, card);
    return this.add(card);
  }

  approvedHere(pause) {
    return Boolean(pause.approvals?.given.some((g) => g.door === "widget"));
  }

  /** An answered card, kept in place and collapsed (the transcript shows what was decided: docs/widget.md). */
  keepAnswered(card, label, outcome, options) {
    card.replied = true;
    card.showAnswered(label, outcome, options);
    if (card.interrupt?.id) this.answered.set(card.interrupt.id, card);
  }

  /** The outcome of the call a pause asked about, from a run's steps (an answer's `steps`). */
  outcomeIn(steps, pause) {
    const step = (steps || []).find((s) => s && s.step === pause?.step);
    return step ? outcomeKey(step.status) : null;
  }

  showNote(key, params) {
    this.add(this.bind(el("p", { class: "note", role: "status" }), key, params));
  }

  showError(error, retry) {
    const again = this.bind(el("button", { type: "button" }), "retry");
    const detail = [error?.detail, error?.code && error.code !== error.detail ? `(${error.code}${error.status ? `, ${error.status}` : ""})` : ""]
      .filter(Boolean).join(" ");
    // Not this page's to answer (a policy's approvers answer it): said so, not "try again in a moment".
    const sentence = error?.code === "not_an_approver" ? "notAnApprover" : "error";
    const box = el("div", { class: "error", role: "alert" },
      this.bind(el("p"), sentence), again,
      el("details", { part: "error-detail" }, this.bind(el("summary"), "details"), el("p", {}, detail)));
    again.addEventListener("click", () => {
      box.remove();
      this.input.focus();
      retry();
    });
    this.add(box);
  }

  showTrace() {
    if (!this.hasAttribute("staff") || !this.trace) return;
    if (this.events.length) {
      this.trace.events = this.events;
    } else {
      const events = [];
      for (const steps of this.stepsByRun.values()) for (const step of steps) events.push({ id: null, type: "step", data: step });
      this.trace.events = events;
    }
    this.trace.setAttribute("lang", this.language);
  }

  // --- the stream ----------------------------------------------------------------------

  follow() {
    // A server whose /config.json says `stream: false` has no stream route: asking would only 404.
    if (!this.threadKnown || this.stream !== "unknown" || this.config?.stream === false) return;
    this.stream = "connecting";
    if (this.sourceFn) this.followSource();
    else this.followFetch();
  }

  followSource() {
    const headers = this.headers({ Accept: "text/event-stream" });
    const source = this.sourceFn(this.base + this.thread("stream"), { headers, lastEventId: this.lastEventId });
    this.source = source;
    this.stream = "live";
    for (const type of STREAM_TYPES) {
      source.addEventListener(type, (e) => this.showEvent(decodeEvent({ id: e.lastEventId, event: type, data: e.data })));
    }
    source.addEventListener("open", () => { this.reconnecting = false; this.showStatus(); });
    source.addEventListener("error", () => { this.reconnecting = true; this.showStatus(); });
  }

  async followFetch() {
    const signal = this.controller.signal;
    let delay = 1000;
    while (!signal.aborted) {
      const extra = { Accept: "text/event-stream" };
      if (this.lastEventId !== null) extra["Last-Event-ID"] = String(this.lastEventId);
      let response = null;
      try {
        response = await this.fetchNow(this.base + this.thread("stream"), { headers: this.headers(extra) });
      } catch { /* the network: try again below */ }
      if (signal.aborted) return;
      const type = response?.headers.get("Content-Type") || "";
      if (response && (!response.ok || !type.startsWith("text/event-stream") || !response.body)) {
        // No stream route (yet): the answers to each request carry everything.
        this.stream = "absent";
        response.body?.cancel?.().catch(() => {});
        return;
      }
      if (response) {
        this.stream = "live";
        this.reconnecting = false;
        this.showStatus();
        delay = 1000;
        try {
          const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
          const parser = new SSEParser();
          for (;;) {
            const { value, done } = await reader.read();
            if (done) break;
            for (const raw of parser.feed(value)) this.showEvent(decodeEvent(raw));
          }
        } catch { /* dropped: reconnect */ }
      }
      if (signal.aborted) return;
      this.reconnecting = true;
      this.showStatus();
      await sleep(delay, signal);
      delay = Math.min(delay * 2, 15000);
    }
  }

  showEvent(event) {
    if (!event) return;
    if (event.id !== null) {
      if (this.lastEventId !== null && event.id <= this.lastEventId) return;
      this.lastEventId = event.id;
    }
    this.events.push(event);
    this.showTrace();
    const d = event.data;
    if (event.type === "step" && typeof d.step === "number") {
      const outcome = outcomeKey(d.status);
      for (const card of this.answered.values()) {
        if (card.interrupt?.step === d.step && (!d.run || card.interrupt?.run === d.run)) card.showOutcome(outcome);
      }
    }
    switch (event.type) {
      case "turn": {
        if (typeof d.run === "string") this.run = d.run;
        const text = typeof d.text === "string" ? d.text : "";
        const at = this.pending.indexOf(text.trim());
        if (at >= 0) this.pending.splice(at, 1);
        else if (text) this.addBefore(el("p", { class: "msg person" }, text), this.unreplied(d.run));
        if (text) this.lastTurn = text;
        break;
      }
      case "waiting": {
        const pause = decodePause(d);
        if (pause.id && !this.shown.pauses.has(pause.id)) {
          const card = this.showPause(pause);
          this.showStatus();
          if (this.focusInside()) card.focusQuestion();
        }
        break;
      }
      case "approval": {
        // One approval of a policy's quorum (this page's or another's): the card's count follows.
        const card = this.shown.pauses.get(d.interrupt);
        const approvals = decodeApprovals(d.approvals);
        // Through the widget: this session (another of its tabs, maybe), which counts once.
        if (card && approvals && d.door === "widget") card.showRecorded(approvals);
        else if (card && approvals) card.showApprovals(approvals);
        if (card) this.showStatus();
        break;
      }
      case "answered": {
        const card = this.shown.pauses.get(d.interrupt);
        if (card && !card.answering) {
          // Answered elsewhere (another tab, the console): kept, collapsed, with that decision. A card that
          // took no answers here was answered by its approvers (this page's own approval said so if it came first).
          this.shown.pauses.delete(d.interrupt);
          const key = answerKey(card.interrupt?.kind, d.decision);
          const said = d.answer && typeof d.answer === "object" && typeof d.answer.text === "string" ? d.answer.text : "";
          const others = Boolean(card.readOnly) && !(card.recorded && d.decision === "approve");
          this.keepAnswered(card, said || (key ? this.word(key) : String(d.decision || "").replace(/_/g, " ")), null,
            { others });
          this.showStatus();
        }
        break;
      }
      case "refused": {
        const refusal = decodeRefusal(d);
        const run = typeof d.run === "string" ? d.run : this.run;
        this.sentences.set(run, [...(this.sentences.get(run) || []), refusal.sentence]);
        this.showRefusal(refusal, run);
        break;
      }
      case "reply": {
        const run = typeof d.run === "string" ? d.run : this.run;
        const answer = decodeAnswer({ reply: { id: d.message, text: d.text, sources: d.sources, citations: d.citations } });
        if (answer.reply) this.showReply(answer.reply, this.sentences.get(run) || [], run);
        break;
      }
      case "rollback": {
        const report = decodeRollback(d);
        if (report) this.showRollback(report, typeof d.run === "string" ? d.run : this.run);
        break;
      }
      default:
    }
  }
}
