import { streamText } from "ai";
import { Composio } from "@composio/core";
import { VercelProvider } from "@composio/vercel";

export async function POST(req: Request) {
  const { selectedTools, messages } = await req.json();
  let composioTools = {};
  // a condition without parentheses inside it: not a method's header
  if (selectedTools && selectedTools.length > 0 && process.env.COMPOSIO_API_KEY) {
    try {
      const composio = new Composio({ apiKey: process.env.COMPOSIO_API_KEY, provider: new VercelProvider() });
      composioTools = await composio.tools.get("default", {
        tools: selectedTools,
      });
    } catch (toolError) {
      console.error(toolError);
    }
  }
  const options: any = { messages, maxSteps: 10 };
  if (Object.keys(composioTools).length > 0) {
    options.tools = composioTools;
  }
  return streamText(options).toDataStreamResponse();
}
