// The example page: a Stalwart agent driven through AG-UI with @ag-ui/client.
// A turn is agent.runAgent() after addMessage(); a pause arrives as an
// interrupt outcome (agent.pendingInterrupts); an answer is runAgent({resume})
// covering every open interrupt; a reload calls connectAgent(), which puts
// the messages and what still waits back (Stalwart keeps them, not the page).
import { buildResumeArray } from "@ag-ui/client";

import { StalwartAgent } from "./stalwart-agent.mjs";
import { words } from "./strings.mjs";

const params = new URLSearchParams(location.search);
const base = (params.get("base") || location.origin).replace(/\/$/, "");
const language = params.get("lang") || (navigator.language.toLowerCase().startsWith("pt") ? "pt-BR" : "en");
const t = words(language);
document.documentElement.lang = language;

// The session and the thread outlive a reload: kept in this browser.
function kept(key, make) {
  let value = localStorage.getItem(key);
  if (!value) { value = make(); localStorage.setItem(key, value); }
  return value;
}
const random = () => Array.from(crypto.getRandomValues(new Uint8Array(18)), (b) => b.toString(16).padStart(2, "0")).join("");
const session = kept("stalwart-agui-session", random);
const threadId = params.get("thread") || kept("stalwart-agui-thread", () => `agui-${random().slice(0, 12)}`);

const agent = new StalwartAgent({ url: `${base}/agui/`, threadId, headers: { "Stalwart-Session": session } });

const $ = (id) => document.getElementById(id);
$("title").textContent = t("title");
$("intro").textContent = t("intro");
$("text-label").textContent = t("label");
$("send").textContent = t("send");

function line(role, text) {
  const item = document.createElement("li");
  item.className = role;
  item.textContent = text;
  return item;
}

function showMessages() {
  const log = $("log");
  log.replaceChildren();
  for (const m of agent.messages) {
    if (m.role === "user" || (m.role === "assistant" && m.content)) log.append(line(m.role, m.content));
    if (m.role === "tool") log.append(line("tool", m.content));
  }
}

// A value as the page's language writes it: 99.9 is "99,9" in pt-BR; text as it is.
function valueWords(value) {
  if (typeof value === "number") return new Intl.NumberFormat(language, { useGrouping: false, maximumFractionDigits: 20 }).format(value);
  return typeof value === "string" ? value : JSON.stringify(value);
}

function originWords(origin) {
  const key = `origin_${origin}`;
  return t(key) === key ? t("origin_other", { origin }) : t(key);
}

function showWaiting() {
  const box = $("waiting");
  box.replaceChildren();
  for (const interrupt of agent.pendingInterrupts) {
    const call = interrupt.metadata?.stalwart || {};
    const card = document.createElement("article");
    card.className = "card";
    card.dataset.interrupt = interrupt.id;
    const heading = document.createElement("h2");
    // What waits, by the pause's kind, in the page's words (never the protocol's `reason`).
    const kind = `kind_${call.kind || "other"}`;
    heading.textContent = t(t(kind) === kind ? "kind_other" : kind);
    const question = document.createElement("p");
    question.textContent = interrupt.message || "";
    const list = document.createElement("dl");
    for (const argument of call.arguments || []) {
      const name = document.createElement("dt");
      name.textContent = call.labels?.[argument.name] || argument.name;
      const value = document.createElement("dd");
      value.textContent = `${valueWords(argument.value)} (${originWords(argument.origin)})`;
      list.append(name, value);
    }
    card.append(heading, question, list);
    if (call.irreversible) {
      const warning = document.createElement("p");
      warning.textContent = t("irreversible");
      card.append(warning);
    }
    const decisions = interrupt.responseSchema?.properties?.decision?.enum || [];
    for (const decision of decisions) {
      const button = document.createElement("button");
      button.type = "button";
      button.className = decision === "approve" ? "primary" : "";
      button.textContent = t(decision);
      button.addEventListener("click", () => answer(interrupt, decision));
      card.append(button);
    }
    box.append(card);
  }
}

function show(status = "") {
  showMessages();
  showWaiting();
  $("status").textContent = status;
}

async function run(parameters) {
  $("status").textContent = t("working");
  const errors = [];
  try {
    // The page's language goes with every run, so a Portuguese turn is read as Portuguese.
    await agent.runAgent({ ...parameters, forwardedProps: { ...parameters.forwardedProps, language } }, { onRunErrorEvent: ({ event }) => { errors.push(event.message); } });
  } catch (error) {
    errors.push(error.message);
  }
  show(errors.length ? t("failed", { message: errors.join(" ") }) : "");
}

// AG-UI's rule: a resume answers every open interrupt. A click chooses for its
// card; once each card has a choice, they all go in one resume.
const chosen = new Map();

function answer(interrupt, decision) {
  chosen.set(interrupt.id, decision);
  const open = agent.pendingInterrupts;
  if (!open.every((i) => chosen.has(i.id))) return undefined;
  const responses = Object.fromEntries(open.map((i) => [i.id, {
    status: "resolved", payload: { decision: chosen.get(i.id) },
    metadata: { stalwart: { token: i.metadata.stalwart.token } },
  }]));
  chosen.clear();
  return run({ resume: buildResumeArray(open, responses) });
}

$("composer").addEventListener("submit", (event) => {
  event.preventDefault();
  const text = $("text").value.trim();
  if (!text) return;
  $("text").value = "";
  agent.addMessage({ id: crypto.randomUUID(), role: "user", content: text });
  run({});
});

// After a reload: what the thread holds, and what still waits.
agent.connectAgent().then(() => {
  show(agent.pendingInterrupts.length ? t("restored", { count: agent.pendingInterrupts.length }) : "");
}, (error) => show(t("failed", { message: error.message })));
