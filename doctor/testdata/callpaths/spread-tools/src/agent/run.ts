import { ToolLoopAgent } from "ai";
import type { ToolSet } from "ai";
import { makeClient } from "~/lib/composio";

function wrap(tools: ToolSet): ToolSet {
  return tools;
}

export async function prepare(userId: string, ownTools: ToolSet) {
  const client = makeClient();
  const session = await client.create(userId, {
    manageConnections: {
      waitForConnections: true,
    },
  });
  const remote = await session.tools();

  const all: ToolSet = wrap({
    ...remote,
    ...ownTools,
  });
  return new ToolLoopAgent({ tools: all });
}
