// The console's live parts (docs/decisions.md, "The queue staff live in"), a static module: the admin's CSP
// allows no inline script.
//
// On every admin page of a person who may answer pauses (templates/admin/base_site.html):
// - the staff stream (GET /admin/threads/interrupt/stream, server-sent events, resumed by the
//   browser with Last-Event-ID) keeps the header's count and the tab title up to date;
// - "Notify me of new pauses" asks for the Notification API's permission on a click only, and
//   from then a new pause shows a notification.
// On the queue (/admin/threads/interrupt/), a pause opened, closed or approved short of its policy's quorum
// (its "1 of 2 approvals") reads the page again, the same
// address with its filters, search and page, and swaps its rows in place, keyed by pause: rows that
// stay keep their element (a checked box, the focus), closed ones leave, new ones come in.
// Every word shown comes from the page (gettext on the server): nothing here is English.

const link = document.querySelector("a.work-waiting");
const countEl = link && link.querySelector(".work-count");
const queueForm = document.getElementById("changelist-form");
const onQueue = document.body.classList.contains("model-interrupt") &&
  document.body.classList.contains("change-list");
const NOTIFY_KEY = "stalwart.console.notify";

function setCount(data) {
  if (!countEl || typeof data.count !== "number") return;
  countEl.textContent = data.words;
  const bare = document.title.replace(/^\([^)]*\) /, "");
  document.title = data.count > 0 ? `(${data.words}) ${bare}` : bare;
}

// --- notifications, asked only on a click ---------------------------------------------------
const notifyButton = document.querySelector("button.work-notify");

function notifying() {
  return "Notification" in window && Notification.permission === "granted" &&
    window.localStorage.getItem(NOTIFY_KEY) === "on";
}

if (notifyButton && "Notification" in window && Notification.permission !== "denied" && !notifying()) {
  notifyButton.hidden = false;
  notifyButton.addEventListener("click", async () => {
    const answer = await Notification.requestPermission();
    if (answer === "granted") {
      window.localStorage.setItem(NOTIFY_KEY, "on");
      notifyButton.textContent = link.dataset.notifyOn;
      notifyButton.disabled = true;
    } else {
      notifyButton.hidden = true;
    }
  });
}

function notify(change) {
  if (!notifying() || change.change !== "opened") return;
  const note = new Notification(link.dataset.newPause, {
    body: [change.tool, change.thread].filter(Boolean).join(" · "), tag: change.pause,
  });
  note.addEventListener("click", () => {
    window.focus();
    window.location.href = `${link.getAttribute("href")}${encodeURIComponent(change.pause)}/change/`;
  });
}

// --- the queue's rows, read again and swapped in place -----------------------------------------
function rowKey(row) {
  const box = row.querySelector("input.action-select");
  if (box) return box.value;
  const anchor = row.querySelector("th a[href]");
  return anchor ? anchor.getAttribute("href") : null;
}

function swapRows(fresh) {
  const oldBody = document.querySelector("#result_list tbody");
  const newBody = fresh.querySelector("#result_list tbody");
  const newForm = fresh.getElementById("changelist-form");
  if (!oldBody || !newBody) {
    // The list went from empty to not (or back): take the new form whole.
    if (queueForm && newForm) {
      queueForm.replaceChildren(...Array.from(newForm.childNodes).map((n) => document.importNode(n, true)));
    }
    return;
  }
  const kept = new Map();
  for (const row of Array.from(oldBody.rows)) kept.set(rowKey(row), row);
  const rows = [];
  for (const row of Array.from(newBody.rows)) {
    const key = rowKey(row);
    const old = kept.get(key);
    if (old) {
      // Same pause: keep the element (its checkbox state, the focus); refresh the words around.
      Array.from(row.cells).forEach((cell, i) => {
        const mine = old.cells[i];
        if (mine && !mine.contains(document.activeElement) && !cell.querySelector("input, button")) {
          mine.replaceChildren(...Array.from(cell.childNodes, (node) => document.importNode(node, true)));
        }
      });
      kept.delete(key);
      rows.push(old);
    } else {
      rows.push(document.importNode(row, true));
    }
  }
  // A closed pause whose box is checked stays, marked closed, so a bulk answer reports it
  // (lost to someone else) rather than leaving it out unseen.
  for (const old of kept.values()) {
    const box = old.querySelector("input.action-select");
    if (box && box.checked) {
      markClosed(old);
      rows.push(old);
      kept.delete(rowKey(old));
    }
  }
  const focused = document.activeElement;
  const lostFocus = focused && oldBody.contains(focused) && [...kept.values()].some((r) => r.contains(focused));
  // Rows taken out of the page, even to be put back, lose the focus: move them only when the list changed,
  // and give the focus back to a kept row's button (a keyboard user tabbing as the rows are read again).
  const same = rows.length === oldBody.rows.length && rows.every((row, i) => row === oldBody.rows[i]);
  if (!same) oldBody.replaceChildren(...rows);
  rows.forEach((row, i) => { row.classList.toggle("row1", i % 2 === 0); row.classList.toggle("row2", i % 2 === 1); });
  if (lostFocus) document.getElementById("searchbar")?.focus();
  else if (focused && focused !== document.activeElement && focused.isConnected) focused.focus();
}

function swapAround(fresh) {
  // The pagination and the row forms (each row's token) follow the rows.
  for (const selector of ["#queue-row-forms", ".paginator", "#changelist-search .small.quiet"]) {
    const mine = document.querySelector(selector);
    const theirs = fresh.querySelector(selector);
    if (mine && theirs) mine.replaceWith(document.importNode(theirs, true));
  }
  // Django's selection counter counts the rows it saw at load: with none checked, the page's own words.
  if (!document.querySelector("#result_list tbody input.action-select:checked")) {
    const mine = document.querySelector(".actions .action-counter");
    const theirs = fresh.querySelector(".actions .action-counter");
    if (mine && theirs) mine.textContent = theirs.textContent;
  }
}

let reading = null;
let again = false;
// The polite live region speaks only when the rows changed (a pause came or went), not on every read.
let removedSinceRead = false;
const shownKeys = () => Array.from(document.querySelectorAll("#result_list tbody tr"), rowKey).join("\n");

async function readQueue() {
  if (reading) { again = true; return; }
  reading = (async () => {
    try {
      const response = await fetch(window.location.href, { credentials: "same-origin", cache: "no-store",
                                                           headers: { Accept: "text/html" } });
      if (!response.ok || !response.url.includes("/admin/threads/interrupt/")) return;
      const fresh = new DOMParser().parseFromString(await response.text(), "text/html");
      const before = shownKeys();
      swapRows(fresh);
      swapAround(fresh);
      const said = document.querySelector(".queue-live-status");
      if (said && (removedSinceRead || shownKeys() !== before)) said.textContent = said.dataset.liveWords;
      removedSinceRead = false;
      document.dispatchEvent(new CustomEvent("stalwart:queue-updated"));
    } catch (err) {
      console.warn("the queue could not be read again", err);
    }
  })();
  await reading;
  reading = null;
  if (again) { again = false; readQueue(); }
}

let timer = null;
function soon() {
  clearTimeout(timer);
  timer = setTimeout(readQueue, 120);
}

function markClosed(row) {
  row.classList.add("queue-closed");
  row.querySelectorAll(".queue-actions button").forEach((b) => { b.disabled = true; });
}

function removeClosed(change) {
  if (change.change !== "closed") return;
  const box = document.querySelector(`#result_list tbody input.action-select[value="${CSS.escape(change.pause)}"]`);
  const row = box && box.closest("tr");
  if (!row) return;
  if (box.checked) markClosed(row);
  else if (!row.contains(document.activeElement)) row.remove();
  removedSinceRead = true;
}

// --- the stream ----------------------------------------------------------------------------------
if (link && link.dataset.stream && "EventSource" in window) {
  const stream = new EventSource(link.dataset.stream, { withCredentials: true });
  stream.addEventListener("count", (e) => setCount(JSON.parse(e.data)));
  stream.addEventListener("pause", (e) => {
    const change = JSON.parse(e.data);
    notify(change);
    if (onQueue) {
      removeClosed(change);
      soon();
    }
  });
  let opened = false;
  stream.addEventListener("open", () => {
    document.documentElement.setAttribute("data-staff-stream", "open");
    // A pause that opened or closed between this page's rows and its stream's start was sent to no
    // one: the first open reads the rows once more (a reconnect resumes by Last-Event-ID instead).
    if (onQueue && !opened) soon();
    opened = true;
  });
  stream.addEventListener("error", () => document.documentElement.setAttribute("data-staff-stream", "retrying"));
}
