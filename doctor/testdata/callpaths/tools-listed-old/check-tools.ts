import { Composio } from "@composio/core";

const composio = new Composio();

export async function checkTools() {
  const tools = await composio.tools.get("default", { toolkits: ["github"] });
  expect(tools).toHaveLength(12);
  console.table(tools.map((t) => t.function.name));
}
