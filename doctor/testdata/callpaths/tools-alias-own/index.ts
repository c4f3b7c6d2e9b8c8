import { Composio } from "@composio/core";
import { registry } from "./registry";

const composio = new Composio();
const { tools } = registry; // the project's own tools, not Composio's

export async function run(task: string) {
  console.log((await composio.tools.get("u", { toolkits: ["gmail"] })).length);
  return tools.execute(task, {});
}
