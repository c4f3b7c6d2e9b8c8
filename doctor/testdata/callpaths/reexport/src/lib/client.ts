import { Composio } from "@composio/core";

export const client = new Composio();
