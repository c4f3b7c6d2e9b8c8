import Composio from "@composio/client";

const client = new Composio({
  apiKey: process.env.COMPOSIO_API_KEY,
});
await client.tools.execute("GMAIL_SEND_EMAIL", { arguments: { to: "a@b.c" } });
