import { Composio } from "@composio/core";

const composio = new Composio();

async function sessionFor(userId: string) {
  return composio.create(userId, { toolkits: ["gmail"] });
}

export async function notify(userId: string, to: string) {
  return (await sessionFor(userId)).execute("GMAIL_SEND_EMAIL", { recipient_email: to });
}

export function listNames(userId: string) {
  return sessionFor(userId).tools();
}
