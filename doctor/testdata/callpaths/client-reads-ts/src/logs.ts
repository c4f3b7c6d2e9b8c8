// a support bot reads Composio's logs and catalog: every call through the client reads
import { Composio } from "@composio/client";
import { config } from "./config.js";

const client = new Composio({ apiKey: config.composioApiKey });

export async function summaries(ids: string[]) {
  const out = [];
  for (const id of ids) {
    out.push(await client.logs.tools.retrieve(id));
  }
  const toolkits = await client.toolkits.list({ search: "gmail", limit: 12 });
  const tool = await client.tools.retrieve("GMAIL_SEND_EMAIL", { version: "latest" });
  return { out, toolkits, tool };
}
