import { Composio } from "@composio/core";

type Sender = { execute(slug: string, args: Record<string, unknown>): Promise<unknown> };

function mailer(session: Sender) {
  return {
    send: (to: string) => session.execute("GMAIL_SEND_EMAIL", { recipient_email: to }),
  };
}

export async function makeMailer(userId: string) {
  const composio = new Composio();
  const session = await composio.create(userId);
  return mailer(session);
}
