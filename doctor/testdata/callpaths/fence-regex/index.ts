import { Composio } from "@composio/core";

const composio = new Composio();

// Models wrap their JSON in Markdown fences: strip them before parsing.
const stripFences = (s: string) => s.replace(/```/g, "").trim();

export async function send(userId: string, raw: string) {
  return composio.tools.execute("GMAIL_SEND_EMAIL", { userId, arguments: JSON.parse(stripFences(raw)) });
}
