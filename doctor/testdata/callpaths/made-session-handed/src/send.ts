import { sessionFor } from "./session";

// the factory's session handed straight to a function of the project's
export async function sendLater(userId: string, to: string) {
  return deliver(await sessionFor(userId), to);
}

async function deliver(s: Awaited<ReturnType<typeof sessionFor>>, to: string) {
  return s.execute("GMAIL_SEND_EMAIL", { recipient_email: to });
}
