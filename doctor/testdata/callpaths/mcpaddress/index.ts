import { Composio } from "@composio/core";
const composio = new Composio();
const url = (await composio.create("user_1", { toolkits: ["gmail"] })).mcp.url;
const other = (await composio.toolRouter.create("user_2")).url;
export { url, other };
