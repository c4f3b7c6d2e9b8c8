import { composioTools } from "./composio";

export async function send(userId: string, args: Record<string, unknown>) {
  return composioTools.execute("GMAIL_SEND_EMAIL", { userId, arguments: args });
}
