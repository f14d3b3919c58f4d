// An HttpAgent for a Stalwart agent's AG-UI endpoint, with connectAgent():
// HttpAgent runs a thread (POST <url>) but leaves connect to subclasses, and
// Stalwart answers it at <url>connect (a thread's state, its messages and the
// pauses still open, so a reloaded page shows what waits).
import { HttpAgent } from "@ag-ui/client";

export function connectUrl(url) {
  return url.replace(/\/?$/, "/connect");
}

export class StalwartAgent extends HttpAgent {
  connect(input) {
    const connection = new HttpAgent({ url: connectUrl(this.url), headers: this.headers, fetch: this.fetch });
    return connection.run(input);
  }

  clone() {
    const copy = super.clone();
    Object.setPrototypeOf(copy, StalwartAgent.prototype);
    return copy;
  }
}
