import { generateText } from "ai";

type Args = { composioSession: unknown; prompt: string };

export async function runAgent({ composioSession: session, prompt }: Args) {
  const tools = await session.tools();
  return generateText({ model: "gpt-4.1", tools, prompt });
}
