// Drives a served LangGraph door with the LangGraph SDK's own JS client
// (@langchain/langgraph-sdk), as tests/langgraph/test_agent_server_js.py asks:
// one command, as JSON on stdin, one result, as JSON on stdout.
//
// The client is made as Agent Inbox makes it (src/lib/client.ts: apiUrl, an
// x-api-key header only when one is given), and the calls are made one after
// the other on it, as one page of Agent Inbox makes them.
//
// Command: {url, apiKey?, calls: [[method, ...args]]}, a method being a path on
//          the client ("threads.search", "runs.create", ...); "runs.stream"'s
//          events are read to the end.
// Result: {results: [{value} | {error: {status, text, message}}]}: a call the
//         SDK threw on is its HTTPError's status and body, and the next calls
//         are made all the same.
import { Client } from "@langchain/langgraph-sdk";

const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const cmd = JSON.parse(Buffer.concat(chunks).toString("utf8"));

const client = new Client({
  apiUrl: cmd.url,
  apiKey: null, // never one from the environment: the test's server is called as the command says
  defaultHeaders: { ...(cmd.apiKey && { "x-api-key": cmd.apiKey }) },
});

const results = [];
for (const [method, ...args] of cmd.calls) {
  const [group, name] = method.split(".");
  try {
    const made = client[group][name](...args);
    if (method === "runs.stream") {
      const events = [];
      for await (const part of made) events.push({ event: part.event, data: part.data });
      results.push({ value: events });
    } else {
      results.push({ value: (await made) ?? null });
    }
  } catch (e) {
    results.push({ error: { status: e?.status ?? null, text: e?.text ?? null, message: String(e?.message ?? e) } });
  }
}
process.stdout.write(JSON.stringify({ results }));
