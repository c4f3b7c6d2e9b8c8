import Composio from "@composio/client";

// built here, used wherever it is imported: its calls cannot be followed from here
export const client = new Composio({ apiKey: process.env.COMPOSIO_API_KEY });

export async function toolkits() {
  return client.toolkits.list({});
}
