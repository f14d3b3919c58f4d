// Type declarations for @stalwart-agents/agent-ui (docs/widget.md).

/** The languages whose tables ship: the agent's language, or the `language` attribute. */
export type Language = "en" | "pt-BR";
export declare const LANGUAGES: readonly Language[];

/** Replace any of the widget's words; `{name}` placeholders are filled where shown.
 * Without `language`, for every language. */
export declare function setStrings(table: Record<string, string>, language?: Language): void;
/** Forget every setStrings override. */
export declare function resetStrings(): void;

/** An argument of a waiting call, with where its value came from. */
export interface PauseArgument {
  name: string;
  value: unknown;
  /** typed, reply, context, computed, model, agent, staff or result:<step> */
  origin: string;
}

/** A question a run asks (docs/http-api.md, "Questions (ask)"). */
export interface Question {
  kind: "choice" | "open";
  prompt: string;
  choices?: string[];
}

/** One approval of a policy's quorum: who gave it, when, through which door. */
export interface Approval {
  by: string;
  at: string;
  door: string;
}

/** A pause's approvals under an approval policy (docs/widget.md, "Approvals"). */
export interface Approvals {
  /** How many distinct approvals it needs. */
  needed: number;
  given: Approval[];
  /** The group (or groups) whose staff answer it, in the console; null: anyone who may answer. */
  group: string | string[] | null;
}

/** One pause, as GET /threads/{id}/interrupts and every message answer list it (docs/http-api.md, "The pause"). */
export interface Pause {
  id: string;
  kind: "confirm" | "outcome_unknown" | "saga_stuck" | "ask" | "delegate";
  tool: string;
  question: string;
  arguments: PauseArgument[];
  reasons: string[];
  irreversible: boolean;
  choices: string[];
  token: string;
  step: number | null;
  ask?: Question | null;
  /** The tool's name in words (the chat adds it from /config.json's `can`); else made from `tool`. */
  words?: string;
  /** The person's turn that led to it (the chat adds it where it saw the turn). */
  turn?: string;
  /** Under an approval policy: who approves it and how far its quorum is. */
  approvals?: Approvals | null;
}

/** An entry of a rollback report: the step, its tool, and (for undone) the undo tool. */
export interface RollbackEntry {
  step?: number | null;
  tool: string;
  undo_tool?: string;
  undo?: string;
}

/** A rollback report (docs/http-api.md, "The rollback report"). */
export interface RollbackReport {
  undone: Array<RollbackEntry | string>;
  not_undoable: Array<RollbackEntry | string>;
  stuck: Array<RollbackEntry | string>;
}

/** One event of a thread's stream (docs/http-api.md, "GET /threads/{id}/stream"). */
export interface ThreadEvent {
  id: number | null;
  type: "turn" | "step" | "waiting" | "answered" | "refused" | "reply" | "rollback" | string;
  data: Record<string, unknown>;
}

/** What GET /config.json says. */
export interface BotConfig {
  name?: string;
  purpose?: string;
  language?: Language;
  greeting?: string;
  base?: string;
  contact?: string;
  stream?: boolean;
  can?: Array<{ tool: string; words?: string; kind?: "read" | "write"; description?: string }>;
  [key: string]: unknown;
}

/** The detail of `stalwart-decision`: what POST /threads/{id}/resume takes, and the label shown. */
export interface DecisionDetail {
  interrupt: string;
  decision: string;
  token: string;
  answer?: { kind: "choice"; index: number } | { kind: "open"; text: string };
  label: string;
  pause: Pause;
}

/** An EventSource-like object: the chat listens for the stream's event types, "open" and "error". */
export interface EventSourceLike {
  addEventListener(type: string, listener: (event: MessageEvent) => void): void;
  close(): void;
}

/** Base of the five elements. */
declare class StalwartElement extends HTMLElement {}

/** `<stalwart-chat>`: the conversation and what waits.
 * Attributes: base, staff, theme ("light" | "dark"), thread, thumbs, language ("en" | "pt-BR"), context-token.
 * CSS parts: header, log, status, steps, composer, thumbs, thumbs-notice, greeting, can, error-detail,
 * typing, sources, citations. Slots: header, footer. */
export declare class StalwartChatElement extends StalwartElement {
  /** What /config.json said; set it to skip that request. */
  bot: BotConfig | null;
  /** A factory for the thread's event stream; by default the chat reads it with fetch. */
  eventSource: ((url: string, init: { headers: Record<string, string>; lastEventId: number | null }) => EventSourceLike) | null;
  /** The fetch used for every request; by default the window's. */
  fetcher: typeof fetch | null;
}

/** `<stalwart-confirm>`: one waiting call. Attribute: theme. Event: stalwart-decision.
 * CSS parts: confirm, wording, turn, arguments, reasons, irreversible, approvals, choices. */
export declare class StalwartConfirmElement extends StalwartElement {
  interrupt: Pause | null;
  /** Words for this element only, over the tables. */
  labels: Record<string, string> | null;
  /** True (the default): one answer, then the buttons stay inert until reopen(). */
  single: boolean;
  reopen(): void;
  /** Focus the question (not an answer). */
  focusQuestion(): void;
  /** True where this page cannot answer: a group is named, or its approval is recorded. */
  readonly readOnly: boolean;
  /** New approvals (another approval came): the count follows. */
  showApprovals(approvals: Approvals): void;
  /** This page's approval is recorded short of the quorum (HTTP 202): no more answers from here. */
  showRecorded(approvals?: Approvals): void;
}

/** `<stalwart-decision>`: a refusal. Attributes: contact, rule, sentence, staff, theme.
 * CSS parts: decision, contact, rule. */
export declare class StalwartDecisionElement extends StalwartElement {}

/** `<stalwart-rollback>`: what a run undid and could not. Attribute: theme. CSS part: rollback. */
export declare class StalwartRollbackElement extends StalwartElement {
  report: RollbackReport | null;
}

/** `<stalwart-trace>`: a thread's steps. Attribute: theme. CSS part: trace. */
export declare class StalwartTraceElement extends StalwartElement {
  events: ThreadEvent[];
}

declare global {
  interface HTMLElementTagNameMap {
    "stalwart-chat": StalwartChatElement;
    "stalwart-confirm": StalwartConfirmElement;
    "stalwart-decision": StalwartDecisionElement;
    "stalwart-rollback": StalwartRollbackElement;
    "stalwart-trace": StalwartTraceElement;
  }
  interface HTMLElementEventMap {
    "stalwart-decision": CustomEvent<DecisionDetail>;
  }
}
