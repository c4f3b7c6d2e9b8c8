import { Composio } from "@composio/core";

const composio = new Composio({ apiKey: process.env.COMPOSIO_API_KEY, maxRetries: 0 });

export async function send(to: string) {
  return composio.tools.execute("GMAIL_SEND_EMAIL", { userId: "u1", arguments: { recipient_email: to } });
}
