// node --test: lib/strings.js (run from tests/web/test_lib.py).
import assert from "node:assert/strict";
import { test } from "node:test";

import en from "../../../static/stalwart/strings.en.js";
import ptBR from "../../../static/stalwart/strings.pt-BR.js";
import { fill, languageOf, resetStrings, setStrings, stringsChanged, word } from "../../../static/stalwart/lib/strings.js";

test("fill puts each {name} in its place and leaves unknown ones as written", () => {
  assert.equal(fill("Hello! I'm {name}. {purpose}", { name: "Shop", purpose: "I charge." }), "Hello! I'm Shop. I charge.");
  assert.equal(fill("Step {step}", { step: 0 }), "Step 0");
  assert.equal(fill("{tool}?", {}), "{tool}?");
  assert.equal(fill("{a}{a}", { a: "<b>" }), "<b><b>");
});

test("languages are chosen, never guessed: only en and pt-BR are read", () => {
  assert.equal(languageOf("pt-BR"), "pt-BR");
  assert.equal(languageOf("pt-br"), "pt-BR");
  assert.equal(languageOf("pt_BR"), "pt-BR");
  assert.equal(languageOf("en-GB"), "en");
  assert.equal(languageOf("pt"), null);
  assert.equal(languageOf("fr"), null);
  assert.equal(languageOf(undefined), null);
});

test("word reads the language's table, English for an unknown language", () => {
  assert.equal(word("approve", "pt-BR"), "Aprovar");
  assert.equal(word("approve", "en"), "Approve");
  assert.equal(word("approve", "fr"), "Approve");
  assert.equal(word("step", "pt-BR", { step: 2 }), "Passo 2");
});

test("setStrings replaces a word, per language or for all, and tells the elements", () => {
  let told = 0;
  const listener = () => { told += 1; };
  stringsChanged.addEventListener("change", listener);
  try {
    setStrings({ send: "Go" });
    assert.equal(word("send", "en"), "Go");
    assert.equal(word("send", "pt-BR"), "Go");
    setStrings({ send: "Manda" }, "pt-BR");
    assert.equal(word("send", "pt-BR"), "Manda");
    assert.equal(word("send", "en"), "Go");
    assert.equal(word("approve", "en", {}, { approve: "Charge it" }), "Charge it");
    assert.equal(told, 2);
    assert.throws(() => setStrings({ send: 3 }), TypeError);
    assert.throws(() => setStrings({ send: "x" }, "fr"), RangeError);
    assert.throws(() => setStrings(null), TypeError);
  } finally {
    resetStrings();
    stringsChanged.removeEventListener("change", listener);
  }
  assert.equal(word("send", "en"), "Send");
});

test("the pt-BR table has exactly the English table's keys, each with the same placeholders", () => {
  assert.deepEqual(Object.keys(ptBR).sort(), Object.keys(en).sort());
  const names = (text) => [...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();
  for (const key of Object.keys(en)) {
    assert.deepEqual(names(ptBR[key]), names(en[key]), key);
    assert.ok(ptBR[key].trim(), key);
  }
});
