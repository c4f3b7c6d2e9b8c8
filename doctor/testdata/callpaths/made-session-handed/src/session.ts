import { Composio } from "@composio/core";

const composio = new Composio();

export async function sessionFor(userId: string) {
  return composio.create(userId, { toolkits: ["gmail"] });
}
