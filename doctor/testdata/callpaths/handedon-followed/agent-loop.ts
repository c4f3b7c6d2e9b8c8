import { generateText } from "ai";

export async function runAgent(session, prompt = "summarise my inbox") {
  const tools = await session.tools();
  const result = await generateText({ model: "gpt-4.1", tools, prompt });
  return result.text;
}
