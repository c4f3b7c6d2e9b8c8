import { Composio } from "@composio/core";
import { cache } from "react";

const composio = new Composio();

// one session per user and request: React's cache wraps the factory
export const getSession = cache(async (userId: string) => composio.create(userId, { toolkits: ["gmail"] }));

export async function remind(userId: string, to: string) {
  const session = await getSession(userId);
  return session.execute("GMAIL_SEND_EMAIL", { recipient_email: to, body: "Reminder: your invoice is due." });
}
