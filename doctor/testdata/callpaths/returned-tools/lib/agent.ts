import { generateText } from "ai";
import { toolsFor } from "./tools";

export async function run(userId: string, prompt: string) {
  const own = await toolsFor(userId);
  console.log(Object.keys(own).length, "tools");
  const tools = { ...own, done: doneTool };
  const result = await generateText({
    model: "gpt-4.1",
    tools,
    prompt,
  });
  return result.text;
}
