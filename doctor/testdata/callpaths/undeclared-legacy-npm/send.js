const { OpenAIToolSet } = require("composio-core");

const toolset = new OpenAIToolSet();
async function main() {
  await toolset.executeAction({ action: "GMAIL_SEND_EMAIL", params: { to: "a@example.com" } });
}
main();
