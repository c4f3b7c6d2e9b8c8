import { Composio } from "@composio/core";
const composio = new Composio();
const found = await composio.tools.executeMetaTool("COMPOSIO_SEARCH_TOOLS", {
  sessionId: "trs_1",
  arguments: { queries: [{ use_case: "send an email" }] },
});
console.log(found);
