import { Composio } from "@composio/core";

let composioClient: Composio | null = null;

export function createComposioClient() {
  if (!composioClient) {
    composioClient = new Composio({ apiKey: process.env.COMPOSIO_API_KEY });
  }
  return composioClient;
}

export async function getOrCreateToolRouterSession(userId: string) {
  const composio = createComposioClient();
  const session = await composio.create(userId, { toolkits: ["gmail"] });
  return session;
}
