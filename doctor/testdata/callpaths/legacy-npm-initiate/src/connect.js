import { Composio } from "composio-core";

const client = new Composio({ apiKey: process.env.COMPOSIO_API_KEY });

export async function connect(integrationId, entityId) {
  const account = await client.connectedAccounts.initiate({ integrationId, entityId });
  return account.connectionStatus === "ACTIVE";
}
