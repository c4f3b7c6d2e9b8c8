import { Composio as ComposioSDK } from "@composio/core";

const sdk = new ComposioSDK();

export async function send(userId: string, args: Record<string, unknown>) {
  const session = await sdk.create(userId, { toolkits: ["gmail"] });
  return session.execute("GMAIL_SEND_EMAIL", args);
}
