import { Composio } from "@composio/core";
import { experimental_createMCPClient as createMCPClient } from "@ai-sdk/mcp";

const composio = new Composio();
export async function tools(userId: string) {
  const session = await composio.create(userId, { toolkits: ["gmail"] });
  const mcp = await createMCPClient({
    transport: { type: "http", url: session.mcp.url, headers: session.mcp.headers },
  });
  return mcp.tools();
}
