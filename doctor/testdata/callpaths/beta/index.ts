import { Composio } from "@composio/core";
const composio = new Composio();
const s = await composio.create("u", {toolkits:["gmail"]});
await s.execute("GMAIL_SEND_EMAIL", {});
