import { Composio } from "@composio/core";

const composio = new Composio({ apiKey: process.env.COMPOSIO_API_KEY });

export async function send(userId: string, args: Record<string, unknown>) {
  const result = await composio.tools
    .execute("GMAIL_SEND_EMAIL", {
      userId,
      arguments: args,
    })
    .then((r) => r.data);
  return result;
}
