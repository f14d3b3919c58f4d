// The widget's words: keyed tables per language, page overrides, `{name}`
// placeholders. DOM-free (EventTarget is in every runtime), tested with node.
//
// Lookup order for a key: an element's own `labels`, then `setStrings` for
// that language, then `setStrings` for every language, then the shipped table
// of the language, then English. The language is always chosen by someone
// (the agent's `/config.json`, or the page's `language` attribute), never
// guessed from the browser.
import en from "../strings.en.js";
import ptBR from "../strings.pt-BR.js";

export const LANGUAGES = Object.freeze(["en", "pt-BR"]);
const SHIPPED = { en, "pt-BR": ptBR };
const overrides = { "*": {}, en: {}, "pt-BR": {} };

/** Fires "change" whenever setStrings replaces a word. */
export const stringsChanged = new EventTarget();

/** "pt-br", "pt_BR", "PT-BR" -> "pt-BR"; "en", "en-GB" -> "en"; anything else -> null. */
export function languageOf(value) {
  if (typeof value !== "string") return null;
  const tag = value.trim().replace("_", "-").toLowerCase();
  if (tag === "pt-br") return "pt-BR";
  if (tag === "en" || tag.startsWith("en-")) return "en";
  return null;
}

/** Fill `{name}` placeholders; an unknown or missing name stays as written. */
export function fill(template, params) {
  return String(template).replace(/\{(\w+)\}/g, (whole, name) =>
    params && Object.hasOwn(params, name) && params[name] !== null && params[name] !== undefined
      ? String(params[name])
      : whole);
}

/**
 * Replace any of the widget's words: `setStrings({ approve: "Go ahead" })` for
 * every language, `setStrings({ approve: "Pode" }, "pt-BR")` for one.
 */
export function setStrings(table, language) {
  if (!table || typeof table !== "object") {
    throw new TypeError("setStrings takes an object of key: text, like setStrings({ send: \"Send\" })");
  }
  const lang = language === undefined ? "*" : languageOf(language);
  if (!lang) throw new RangeError(`setStrings: the language is one of ${LANGUAGES.join(", ")}`);
  for (const [key, text] of Object.entries(table)) {
    if (typeof text !== "string") throw new TypeError(`setStrings: "${key}" must be a string`);
    overrides[lang][key] = text;
  }
  stringsChanged.dispatchEvent(new Event("change"));
}

/** Forget every setStrings override (for tests and pages that switch brands). */
export function resetStrings() {
  for (const table of Object.values(overrides)) for (const key of Object.keys(table)) delete table[key];
  stringsChanged.dispatchEvent(new Event("change"));
}

/** The text of `key` in `language`, placeholders filled. */
export function word(key, language, params, labels) {
  const lang = languageOf(language) || "en";
  const own = (table) => (table && Object.hasOwn(table, key) ? table[key] : undefined);
  const template = own(labels) ?? own(overrides[lang]) ?? own(overrides["*"]) ?? own(SHIPPED[lang]) ?? own(en);
  return fill(template ?? key, params);
}

/** The shipped table of a language (a copy), without overrides. */
export function shippedStrings(language) {
  return { ...(SHIPPED[languageOf(language) || "en"]) };
}
