import { Composio } from "@composio/core";
import { VercelProvider } from "@composio/vercel";

export const client = new Composio({ provider: new VercelProvider() });
