import { Composio } from "@composio/core";
import { VercelProvider } from "@composio/vercel";

const composio = new Composio({ provider: new VercelProvider() });

function fix(tool: unknown) {
  return tool;
}

export async function agentTools(userId: string, slugs: string[]) {
  const raw = await composio.tools.get(userId, { tools: slugs });
  console.log("tools", Object.keys(raw).length);
  const checked: Record<string, unknown> = {};
  for (const [name, tool] of Object.entries(raw)) {
    checked[name] = fix(tool);
  }
  return checked;
}
