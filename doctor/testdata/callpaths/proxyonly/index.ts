import { Composio } from "@composio/core";
const composio = new Composio();
await composio.tools.proxyExecute({endpoint:"/x", method:"GET"});
