import type { Composio } from "@composio/core";

export async function notify(cx: Composio, user: string) {
  const sess = await cx.create(user);
  /* a block comment: sess.execute( would not count */
  return sess.proxyExecute({ toolkit: "slack", endpoint: "/chat.postMessage", method: "POST" });
}
