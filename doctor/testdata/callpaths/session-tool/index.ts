import { Composio } from "@composio/core";

let composio: Composio | null = null;
let sessionId = "";

export async function start(userId: string) {
  composio = new Composio({ apiKey: process.env.COMPOSIO_API_KEY });
  sessionId = (await composio.create(userId)).sessionId;
}

// a session's tool run by slug through the client: the session's execute
export async function run(tool: string, args: Record<string, unknown>) {
  return composio!.tools.executeSessionTool(tool, {
    sessionId,
    arguments: args,
  });
}
