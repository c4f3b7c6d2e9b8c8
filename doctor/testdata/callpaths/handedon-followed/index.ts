import { Composio } from "@composio/core";
import { runAgent } from "./agent-loop";

const composio = new Composio();
const s = await composio.create("u1", { toolkits: ["slack"] });
await runAgent(s);
