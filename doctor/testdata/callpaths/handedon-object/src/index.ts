import { Composio } from "@composio/core";
import { runAgent } from "./agent";

const composio = new Composio();
const s = await composio.create("u1", { toolkits: ["gmail"] });
await runAgent({ composioSession: s, prompt: "summarise my inbox" });
