// The elements' style sheets, as text for constructable style sheets (which
// the page's strict CSP allows: no <style>, no style attributes).
//
// Theming (docs/widget.md, "Theming"): every colour and size is a custom property whose default
// each element defines on its own `:host`. A host rule is the lowest a rule
// can be: any rule of the page that matches the element (`stalwart-chat {
// --stalwart-accent: ... }`) wins over it, whatever its specificity.

const LIGHT = `--stalwart-bg:#ffffff;--stalwart-fg:#1a1a1a;--stalwart-muted:#595959;--stalwart-line:#d0d0d0;
--stalwart-accent:#0b57d0;--stalwart-accent-fg:#ffffff;--stalwart-warn:#8a4b00;--stalwart-bad:#b3261e;
--stalwart-radius:8px;--stalwart-gap:12px;--stalwart-font:system-ui, sans-serif;color-scheme:light;`;
const DARK = `--stalwart-bg:#121212;--stalwart-fg:#f1f1f1;--stalwart-muted:#bdbdbd;--stalwart-line:#3c3c3c;
--stalwart-accent:#8ab4f8;--stalwart-accent-fg:#0b0b0b;--stalwart-warn:#ffb74d;--stalwart-bad:#f28b82;color-scheme:dark;`;

export const THEME = `
:host{${LIGHT}}
@media (prefers-color-scheme: dark){:host(:not([theme="light"])){${DARK}}}
:host([theme="dark"]){${DARK}}
:host{display:block;box-sizing:border-box;font-family:var(--stalwart-font);color:var(--stalwart-fg);line-height:1.45;font-size:1rem}
:host([hidden]){display:none}
*,*::before,*::after{box-sizing:inherit}
:focus-visible{outline:2px solid var(--stalwart-accent);outline-offset:2px}
h2,h3,p,ul,ol,dl{margin:0}
button{font:inherit;font-size:.9375rem;min-height:2.5rem;padding:.45rem .9rem;border-radius:var(--stalwart-radius);
border:1px solid color-mix(in srgb,var(--stalwart-muted) 60%,var(--stalwart-bg));background:var(--stalwart-bg);
color:var(--stalwart-fg);cursor:pointer;line-height:1.2}
button:hover{border-color:var(--stalwart-fg)}
button.primary{background:var(--stalwart-accent);border-color:var(--stalwart-accent);color:var(--stalwart-accent-fg);font-weight:600}
button.primary:hover{border-color:var(--stalwart-fg)}
button[disabled]{cursor:default;opacity:.65}
.card{display:flex;flex-direction:column;gap:calc(var(--stalwart-gap) * .75);padding:var(--stalwart-gap);
border:1px solid var(--stalwart-line);border-left:4px solid var(--stalwart-accent);border-radius:var(--stalwart-radius);
background:var(--stalwart-bg);overflow-wrap:anywhere}
.card:focus{outline:none}
.card:focus-visible{outline:2px solid var(--stalwart-accent)}
.title{font-size:1.0625rem;font-weight:650;line-height:1.3}
.sub{font-size:.8125rem;font-weight:600;color:var(--stalwart-muted);margin-bottom:.25rem}
.muted{color:var(--stalwart-muted);font-size:.875rem}
ul,ol{padding-left:1.25rem}
li+li{margin-top:.2rem}
summary{cursor:pointer;width:max-content;max-width:100%;border-radius:4px}
.sr-only{position:absolute;width:1px;height:1px;margin:-1px;padding:0;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap;border:0}
`;

export const CONFIRM = `
p[part~="wording"],[part~="turn"]{color:var(--stalwart-muted);font-size:.875rem}
[part~="turn"]{font-style:italic}
dl{display:grid;grid-template-columns:minmax(5rem,max-content) minmax(0,1fr);gap:.35rem .9rem}
.row{display:contents}
dt{font-weight:600}
dd{margin:0}
.value{white-space:pre-wrap}
.origin{display:block;color:var(--stalwart-muted);font-size:.8125rem}
[part~="irreversible"]{color:var(--stalwart-warn);font-weight:600;padding:.4rem .6rem;border-radius:var(--stalwart-radius);
background:color-mix(in srgb,var(--stalwart-warn) 10%,var(--stalwart-bg))}
.card.irreversible{border-left-color:var(--stalwart-warn)}
[part~="choices"]{display:flex;flex-wrap:wrap;gap:.5rem;align-items:center}
[part~="choices"] form{display:flex;gap:.5rem;flex:1 1 16rem;min-width:0}
input{flex:1;min-width:0;min-height:2.5rem;font:inherit;padding:.4rem .6rem;color:var(--stalwart-fg);background:var(--stalwart-bg);
border:1px solid color-mix(in srgb,var(--stalwart-muted) 70%,var(--stalwart-bg));border-radius:var(--stalwart-radius)}
.pending{color:var(--stalwart-muted);font-size:.875rem}
[part~="approvals"]{display:flex;flex-direction:column;gap:.2rem;padding:.45rem .6rem;border-radius:var(--stalwart-radius);
background:color-mix(in srgb,var(--stalwart-accent) 8%,var(--stalwart-bg))}
[part~="approvals"]:empty{display:none}
[part~="approvals"] .group{font-weight:600}
[part~="approvals"] .count{font-variant-numeric:tabular-nums}
[part~="approvals"] .recorded{color:var(--stalwart-muted);font-size:.9375rem}
.answered{display:block;padding-block:.5rem;border-left-color:var(--stalwart-line)}
.answered summary{cursor:pointer;display:flex;flex-wrap:wrap;gap:.25rem .75rem;align-items:baseline;list-style:none}
.answered summary::-webkit-details-marker{display:none}
.answered summary::before{content:"▸";color:var(--stalwart-muted)}
.answered[open] summary::before{content:"▾"}
.answered .title{font-weight:600}
.answered .decision,.answered .outcome{color:var(--stalwart-muted);font-size:.875rem}
.answered .outcome_failed,.answered .outcome_refused{color:var(--stalwart-bad)}
.answered [part~="arguments"]{margin-top:.5rem}
`;

export const DECISION = `
.card{border-left-color:var(--stalwart-bad)}
.head{color:var(--stalwart-bad);font-weight:650}
.sentence{white-space:pre-wrap}
[part~="rule"] code,[part~="rule"] .code{font-family:ui-monospace,monospace;font-size:.875rem}
`;

export const ROLLBACK = `
.card{border-left-color:var(--stalwart-warn)}
section+section{margin-top:.25rem}
.step{color:var(--stalwart-muted);font-size:.875rem;margin-right:.4rem}
.undo{color:var(--stalwart-muted)}
`;

export const TRACE = `
.card{border-left-color:var(--stalwart-line)}
ol{font-size:.8125rem;font-family:ui-monospace,monospace;padding-left:0;list-style:none}
li{display:flex;flex-wrap:wrap;gap:.15rem .6rem;overflow-wrap:anywhere}
.id,.type{color:var(--stalwart-muted)}
.type{min-width:5.5rem}
`;

const NESTED = "stalwart-confirm,stalwart-decision,stalwart-rollback,stalwart-trace";
const PROPS = ["bg", "fg", "muted", "line", "accent", "accent-fg", "warn", "bad", "radius", "gap", "font"];

export const CHAT = `
:host{height:36rem;background:var(--stalwart-bg)}
${NESTED}{${PROPS.map((p) => `--stalwart-${p}:inherit;`).join("")}color-scheme:inherit}
.frame{display:flex;flex-direction:column;height:100%;min-height:0;background:var(--stalwart-bg)}
[part~="header"]{display:flex;align-items:center;flex-wrap:wrap;gap:var(--stalwart-gap);padding:.75rem var(--stalwart-gap);
border-bottom:1px solid var(--stalwart-line)}
h1{font-size:1.125rem;margin:0;font-weight:650;line-height:1.3}
.scroller{flex:1;min-height:0;overflow-y:auto;padding:var(--stalwart-gap);display:flex;flex-direction:column;gap:var(--stalwart-gap)}
.log{display:flex;flex-direction:column;gap:var(--stalwart-gap)}
.log>*{flex:none}
.msg{max-width:min(85%,40rem);padding:.5rem .8rem;border-radius:var(--stalwart-radius);white-space:pre-wrap;overflow-wrap:anywhere}
.person{align-self:flex-end;background:var(--stalwart-accent);color:var(--stalwart-accent-fg)}
.said{align-self:flex-start;display:flex;flex-direction:column;gap:.35rem;max-width:min(85%,40rem)}
.said .msg{max-width:100%;background:color-mix(in srgb,var(--stalwart-fg) 7%,var(--stalwart-bg))}
.note{align-self:center;text-align:center;color:var(--stalwart-muted);font-size:.875rem}
[part~="can"]{font-size:.9375rem}
[part~="can"] ul{list-style:none;padding:0;margin-top:.5rem;display:flex;flex-direction:column;gap:.5rem}
[part~="can"] li{display:flex;flex-wrap:wrap;align-items:center;gap:.25rem .6rem;padding:.4rem 0;border-top:1px solid var(--stalwart-line)}
[part~="can"] li+li{margin:0}
.tool{font-weight:600}
.desc{flex:1 1 12rem;color:var(--stalwart-muted);font-size:.875rem}
.badge{font-size:.75rem;padding:.1rem .45rem;border-radius:999px;border:1px solid var(--stalwart-warn);color:var(--stalwart-warn)}
[part~="can"] button,[part~="thumbs"] button,.error button{min-height:2rem;padding:.2rem .6rem;font-size:.8125rem}
[part~="thumbs"]{display:flex;gap:.4rem}
[part~="thumbs"] button[aria-pressed="true"]{background:var(--stalwart-accent);border-color:var(--stalwart-accent);color:var(--stalwart-accent-fg)}
[part~="sources"],[part~="citations"]{font-size:.8125rem;color:var(--stalwart-muted)}
.error{align-self:stretch;display:flex;flex-wrap:wrap;align-items:center;gap:.5rem .75rem;padding:.6rem .75rem;
border:1px solid var(--stalwart-bad);border-radius:var(--stalwart-radius);color:var(--stalwart-fg)}
.error p{flex:1 1 14rem;color:var(--stalwart-bad);font-weight:600}
[part~="error-detail"]{flex-basis:100%;font-size:.8125rem;color:var(--stalwart-muted)}
[part~="error-detail"] p{color:var(--stalwart-muted);font-weight:400;margin-top:.25rem;white-space:pre-wrap}
[part~="typing"]{padding:0 var(--stalwart-gap);color:var(--stalwart-muted);font-size:.875rem;display:flex;align-items:center;gap:.5rem}
[part~="typing"][hidden]{display:none}
.dots{display:inline-flex;gap:3px}
.dots i{width:6px;height:6px;border-radius:50%;background:var(--stalwart-muted);animation:stalwart-blink 1.2s infinite ease-in-out}
.dots i:nth-child(2){animation-delay:.2s}.dots i:nth-child(3){animation-delay:.4s}
@keyframes stalwart-blink{0%,80%,100%{opacity:.25}40%{opacity:1}}
@media (prefers-reduced-motion: reduce){.dots i{animation:none;opacity:.6}}
[part~="status"]{padding:0 var(--stalwart-gap);color:var(--stalwart-muted);font-size:.875rem}
[part~="status"]:not(:empty){padding-top:.35rem}
[part~="composer"]{display:flex;gap:.5rem;align-items:flex-end;padding:.6rem var(--stalwart-gap);border-top:1px solid var(--stalwart-line)}
textarea{flex:1;min-width:0;min-height:2.75rem;max-height:9rem;resize:none;font:inherit;line-height:1.4;padding:.6rem .75rem;
color:var(--stalwart-fg);background:var(--stalwart-bg);border:1px solid color-mix(in srgb,var(--stalwart-muted) 70%,var(--stalwart-bg));
border-radius:var(--stalwart-radius)}
textarea::placeholder{color:var(--stalwart-muted);opacity:1}
[part~="composer"] button{min-height:2.75rem}
.foot{padding:0 var(--stalwart-gap) .6rem;display:flex;flex-direction:column;gap:.25rem;font-size:.8125rem;color:var(--stalwart-muted)}
.foot:empty{display:none}
.foot [hidden]{display:none}
[part~="steps"]{border-top:1px solid var(--stalwart-line);max-height:40%;overflow-y:auto;padding:var(--stalwart-gap)}
[part~="steps"][hidden]{display:none}
`;
