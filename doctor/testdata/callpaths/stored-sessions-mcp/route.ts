import { Composio } from "@composio/core";

const composio = new Composio();
const sessions: Record<string, any> = {};

export async function mcpFor(userId: string) {
  sessions[userId] = await composio.create(userId, { toolkits: ["slack"] });
  return { url: sessions[userId].mcp.url };
}
