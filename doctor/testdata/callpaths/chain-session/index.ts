import { Composio } from "@composio/core";

const composio = new Composio();

export async function reply(userId: string, threadId: string, body: string) {
  const session = await composio
    .create(userId, { toolkits: ["gmail"] });
  return session
    .execute("GMAIL_REPLY_TO_THREAD", { thread_id: threadId, message_body: body });
}
