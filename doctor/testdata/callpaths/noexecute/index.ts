import { Composio } from "@composio/core";
const composio = new Composio();
// lists what a user has connected; never executes a tool
const accounts = await composio.connectedAccounts.list({ userIds: ["u1"] });
const toolkits = await composio.toolkits.get({});
console.log(accounts.items.length, toolkits.length, "tools.execute( is never called");
