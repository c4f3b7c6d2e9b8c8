import { Composio } from "@composio/core";
import { SlackBot } from "./bot";

const composio = new Composio();
const session = await composio.create("u1", { toolkits: ["slack"] });
const bot = new SlackBot(session);
await bot.post("deploy done");
