// Drives a real `stalwart serve` with the AG-UI protocol's own client
// (@ag-ui/client's HttpAgent), as tests/agui/test_agui.py asks: one command,
// as JSON on stdin, one result, as JSON on stdout.
//
// Command: {url, threadId, headers?, messages? (the history the client holds),
//           pendingInterrupts? (what it holds from an earlier run), message? ({id, content}: a new user message),
//           resume? (ResumeEntry[]), runId?, context? (Context[]), connect? (true: connectAgent, after a reload)}
// Result: {events (as the client's subscribers saw them, after its own verification), raw (each response body),
//          error (the message runAgent rejected with, or null), messages, state, pendingInterrupts}
import { HttpAgent } from "@ag-ui/client";

import { StalwartAgent } from "../../examples/agui/stalwart-agent.mjs";

const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const cmd = JSON.parse(Buffer.concat(chunks).toString("utf8"));

const raw = [];
const teeing = async (url, init) => {
  const response = await fetch(url, init);
  raw.push(await response.clone().text());
  return response;
};
const agent = new StalwartAgent({
  url: cmd.url, headers: cmd.headers || {}, threadId: cmd.threadId, initialMessages: cmd.messages || [],
  fetch: teeing,
});
if (cmd.pendingInterrupts) agent.pendingInterrupts = cmd.pendingInterrupts;
if (cmd.message) agent.addMessage({ id: cmd.message.id, role: "user", content: cmd.message.content });

const events = [];
const subscriber = { onEvent: ({ event }) => { events.push(event); } };
let error = null;
const parameters = {};
if (cmd.resume !== undefined) parameters.resume = cmd.resume;
if (cmd.runId) parameters.runId = cmd.runId;
if (cmd.context) parameters.context = cmd.context;
try {
  if (cmd.connect) await agent.connectAgent(parameters, subscriber);
  else await agent.runAgent(parameters, subscriber);
} catch (e) {
  error = String((e && e.message) || e);
}
process.stdout.write(JSON.stringify({
  events, raw, error, messages: agent.messages, state: agent.state, pendingInterrupts: agent.pendingInterrupts,
  isHttpAgent: agent instanceof HttpAgent,
}));
