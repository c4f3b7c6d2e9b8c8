import { generateText } from "ai";
import { client as c } from "./lib/client";

export async function run(prompt: string) {
  const tools = await c.tools.get("user_1", { toolkits: ["gmail"] });
  return generateText({ model: "gpt-4.1", tools, prompt });
}
