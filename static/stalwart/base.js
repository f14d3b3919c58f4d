// What the five elements share: a shadow root with constructable style sheets,
// their words (lib/strings.js) kept up to date when setStrings or the language
// changes, and a small element builder that only ever sets text as text.
import { stringsChanged, word } from "./lib/strings.js";
import { THEME } from "./styles.js";

const sheets = new Map();

function sheet(css) {
  let s = sheets.get(css);
  if (!s) {
    s = new CSSStyleSheet();
    s.replaceSync(css);
    sheets.set(css, s);
  }
  return s;
}

/**
 * A DOM node: `el("p", { part: "greeting" }, "Hello")`. Attributes with a
 * value of null, undefined or false are left out; children that are strings
 * become text nodes (never markup).
 */
export function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    node.setAttribute(name, value === true ? "" : String(value));
  }
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    node.append(typeof child === "string" ? document.createTextNode(child) : child);
  }
  return node;
}

let counter = 0;
/** An id unique in the page, for aria-labelledby inside one shadow root. */
export function uid(prefix) {
  counter += 1;
  return `${prefix}-${counter}`;
}

export class StalwartElement extends HTMLElement {
  static styles = "";
  static properties = [];

  constructor() {
    super();
    this.attachShadow({ mode: "open" });
  }

  connectedCallback() {
    this.shadowRoot.adoptedStyleSheets = [sheet(THEME), sheet(this.constructor.styles)];
    // A property set before the element was defined sits on the instance and
    // hides the class's accessor: take it and set it again.
    for (const name of this.constructor.properties) {
      if (Object.hasOwn(this, name)) {
        const value = this[name];
        delete this[name];
        this[name] = value;
      }
    }
    this.wordsChanged = () => this.showWords();
    stringsChanged.addEventListener("change", this.wordsChanged);
    this.setUp();
  }

  disconnectedCallback() {
    stringsChanged.removeEventListener("change", this.wordsChanged);
    this.tearDown();
  }

  attributeChangedCallback(name, before, after) {
    if (before !== after && this.isConnected && this.shadowRoot.childNodes.length) this.attributeChanged(name);
  }

  /** The language of the words: the `lang` attribute, else English. */
  get language() {
    return this.getAttribute("lang") || "en";
  }

  /** Own labels (the `labels` property, where an element has one) above the tables. */
  get ownLabels() {
    return null;
  }

  word(key, params) {
    return word(key, this.language, params, this.ownLabels);
  }

  setUp() {
    this.render();
  }

  tearDown() {}

  attributeChanged() {
    this.render();
  }

  showWords() {
    this.render();
  }

  render() {}
}
