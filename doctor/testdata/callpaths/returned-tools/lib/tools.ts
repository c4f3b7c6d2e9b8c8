import { Composio } from "@composio/core";

async function platformTools(userId: string) {
  const composio = new Composio();
  const session = await composio.create(userId);
  return await session.tools();
}

export async function toolsFor(userId: string) {
  return platformTools(userId);
}
