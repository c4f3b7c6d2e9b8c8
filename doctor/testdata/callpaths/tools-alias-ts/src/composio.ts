import { Composio } from "@composio/core";

export const composio = new Composio({ apiKey: process.env.COMPOSIO_API_KEY });
export const { tools: composioTools } = composio;
