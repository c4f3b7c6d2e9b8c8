import { Composio } from "@composio/core";

const composio = new Composio({ apiKey: process.env.COMPOSIO_API_KEY });

export async function sessionFor(userId: string) {
  return composio.create(userId, { manageConnections: true });
}
