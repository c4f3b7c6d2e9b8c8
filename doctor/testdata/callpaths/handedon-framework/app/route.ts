import { streamText } from "ai";
import { sessionFor } from "@/lib/composio";

export async function POST(req: Request) {
  const { userId, messages } = await req.json();
  const session = await sessionFor(userId);
  const result = streamText({
    model: "gpt-4.1",
    tools: await session.tools(),
    messages,
  });
  return result.toTextStreamResponse();
}
