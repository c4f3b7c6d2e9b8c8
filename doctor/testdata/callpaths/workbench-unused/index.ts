import { Composio } from "@composio/core";

const composio = new Composio();
await composio.tools.execute("GMAIL_SEND_EMAIL", { userId: "u", arguments: {} });
