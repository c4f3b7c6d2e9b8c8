import { Composio } from "@composio/core";
import { Agent } from "some-agent-framework";

const composio = new Composio();

function sessionFor(userId: string) {
  return composio.create(userId, { toolkits: ["slack"] });
}

export async function start(userId: string) {
  return new Agent({ session: await sessionFor(userId) }).run();
}
