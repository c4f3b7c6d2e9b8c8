import { Composio } from "@composio/core";
import { VercelProvider } from "@composio/vercel";

export function makeClient() {
  return new Composio({
    apiKey: process.env.COMPOSIO_API_KEY,
    provider: new VercelProvider(),
  });
}
