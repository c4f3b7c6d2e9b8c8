import { Composio } from "@composio/core";
import { experimental_createMCPClient as createMCPClient } from "@ai-sdk/mcp";

const composio = new Composio();
const session = await composio.create("default", { toolkits: ["gmail"] });
const { mcp, sessionId } = session;
console.log(`session ${sessionId}`);
const client = await createMCPClient({ transport: { type: "http", url: mcp.url, headers: mcp.headers } });
const tools = await client.tools();
