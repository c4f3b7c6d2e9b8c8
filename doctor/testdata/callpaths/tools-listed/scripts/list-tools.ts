import { Composio } from "@composio/core";

async function main() {
  const composio = new Composio();
  const session = await composio.create("test-user", { toolkits: ["gmail"] });
  const tools = await session.tools();
  console.log(`${Object.keys(tools).length} tools`);
  for (const name of Object.keys(tools)) {
    console.log(" -", name);
  }
  const raw = await composio.tools.get("test-user", { toolkits: ["github"] });
  console.log(raw.map((t) => t.function.name).join("\n"));
}

main();
