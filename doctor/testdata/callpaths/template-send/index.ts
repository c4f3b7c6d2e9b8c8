import { Composio } from "@composio/core";

const composio = new Composio();

export async function notify(userId: string, text: string) {
  console.log(`posted: ${JSON.stringify(await composio.tools.execute("SLACK_SEND_MESSAGE", { userId, arguments: { channel: "#ops", text } }))}`);
}
