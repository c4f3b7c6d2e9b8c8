import { Composio } from "@composio/core";

const composio = new Composio();
const session = await composio.create("u1");
const method = process.env.USE_PROXY ? "proxyExecute" : "execute";
await session[method]("SLACK_SEND_MESSAGE", { text: "hi" });
