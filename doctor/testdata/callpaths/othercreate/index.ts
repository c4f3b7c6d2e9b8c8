import { Composio } from "@composio/core";
const composio = new Composio({ apiKey: process.env.COMPOSIO_API_KEY });
export async function connect(userId: string, authConfigId: string) {
  const request = await composio.connectedAccounts.initiate(userId, authConfigId);
  return request.redirectUrl;
}
export async function hook(url: string) {
  return composio.webhooks.endpoints.create({ url });
}
export async function send(userId: string) {
  return composio.tools.execute("GMAIL_SEND_EMAIL", { userId, arguments: {} });
}
// composio.authConfigs.create in a comment is not a call
export async function authorize(userId: string) {
  return (await composio.toolkits.authorize(userId, "github")).redirectUrl;
}
