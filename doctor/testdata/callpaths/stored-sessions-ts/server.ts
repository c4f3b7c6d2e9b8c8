import { Composio } from "@composio/core";

const composio = new Composio();
const sessions = new Map<string, unknown>();

export async function open(userId: string) {
  if (!sessions.has(userId)) {
    sessions.set(userId, await composio.create(userId, { toolkits: ["gmail"] }));
  }
}

export async function notify(userId: string, to: string) {
  await open(userId);
  return sessions.get(userId).execute("GMAIL_SEND_EMAIL", { recipient_email: to, body: "Your order shipped." });
}
