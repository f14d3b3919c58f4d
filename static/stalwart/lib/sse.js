// A server-sent events parser (the HTML standard's "event stream" format),
// fed text as it arrives: the widget reads GET /threads/{id}/stream with fetch,
// because EventSource cannot send the Stalwart-Session header.

export class SSEParser {
  constructor() {
    this.buffer = "";
    this.data = [];
    this.event = "";
    this.lastEventId = "";
    this.retry = null;
  }

  /** Feed a chunk of text; returns the events it completed: [{id, event, data}]. */
  feed(chunk) {
    this.buffer += chunk;
    const out = [];
    for (;;) {
      const match = /\r\n|\r|\n/.exec(this.buffer);
      if (!match) break;
      // A lone "\r" at the very end may be the first half of "\r\n": wait for more.
      if (match[0] === "\r" && match.index === this.buffer.length - 1) break;
      const line = this.buffer.slice(0, match.index);
      this.buffer = this.buffer.slice(match.index + match[0].length);
      const event = this.line(line);
      if (event) out.push(event);
    }
    return out;
  }

  line(line) {
    if (line === "") {
      if (!this.data.length) {
        this.event = "";
        return null;
      }
      const event = { id: this.lastEventId, event: this.event || "message", data: this.data.join("\n") };
      this.data = [];
      this.event = "";
      return event;
    }
    if (line.startsWith(":")) return null;
    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "data") this.data.push(value);
    else if (field === "event") this.event = value;
    else if (field === "id" && !value.includes("\0")) this.lastEventId = value;
    else if (field === "retry" && /^\d+$/.test(value)) this.retry = Number(value);
    return null;
  }
}
