import { experimental_createMCPClient } from "@ai-sdk/mcp";
import { getOrCreateToolRouterSession } from "../../../lib/composio";

export async function POST(req: Request) {
  const { userId } = await req.json();
  const session = await getOrCreateToolRouterSession(userId);
  const client = await experimental_createMCPClient({ transport: { type: "http", url: session?.url ?? "" } });
  return Response.json({ sessionId: session?.sessionId, tools: Object.keys(await client.tools()) });
}
