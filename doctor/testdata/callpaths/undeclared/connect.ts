import { Composio } from "@composio/core";

async function open() {
  const composio = new Composio();
  const routed = await composio.create("owner-1", {
    toolkits: ["facebook", "gmail"],
    manageConnections: {
      waitForConnections: true,
    },
  });
  console.log("session", routed.sessionId);
  console.log("address", routed.mcp.url);
}

open().catch(console.error);
