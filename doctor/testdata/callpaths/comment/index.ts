import { Composio } from "@composio/core";
const composio = new Composio();
// later: const session = await composio.create("u") and session.execute(...)
const help = "call session.execute( with a tool slug";
await composio.tools.execute("GMAIL_SEND_EMAIL", { userId: "u", arguments: {} });
