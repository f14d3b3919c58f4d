// Every word the example page shows, keyed, in English and Brazilian Portuguese.
export const STRINGS = {
  en: {
    title: "Stalwart over AG-UI",
    intro: "A page that talks to a Stalwart agent with @ag-ui/client's HttpAgent. Writes wait for you.",
    label: "Message",
    send: "Send",
    waits: "Waiting for you: {tool}",
    irreversible: "This cannot be undone.",
    approve: "Approve",
    skip: "Skip",
    cancel_all: "Cancel all",
    decline: "Decline",
    working: "Working…",
    restored: "Restored: {count} waiting.",
    failed: "That did not go through: {message}",
    origin_typed: "you typed it",
    origin_context: "the page gave it",
    origin_reply: "you answered it",
    origin_model: "the assistant wrote it",
    origin_other: "{origin}",
  },
  "pt-BR": {
    title: "Stalwart pelo AG-UI",
    intro: "Uma página que conversa com um agente Stalwart pelo HttpAgent do @ag-ui/client. Escritas esperam por você.",
    label: "Mensagem",
    send: "Enviar",
    waits: "Esperando por você: {tool}",
    irreversible: "Isto não pode ser desfeito.",
    approve: "Aprovar",
    skip: "Pular",
    cancel_all: "Cancelar tudo",
    decline: "Recusar",
    working: "Trabalhando…",
    restored: "Restaurado: {count} esperando.",
    failed: "Isso não deu certo: {message}",
    origin_typed: "você digitou",
    origin_context: "a página informou",
    origin_reply: "você respondeu",
    origin_model: "o assistente escreveu",
    origin_other: "{origin}",
  },
};

export function words(language) {
  const table = STRINGS[language] || STRINGS.en;
  return (key, values = {}) => (table[key] ?? STRINGS.en[key] ?? key).replace(/\{(\w+)\}/g, (_, n) => String(values[n] ?? ""));
}
