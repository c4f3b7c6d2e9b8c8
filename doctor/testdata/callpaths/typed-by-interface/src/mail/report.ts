import type { MailSession } from "../config/client.js";

export async function sendReport(session: MailSession, slug: string, to: string, body: string) {
  const response = await session.execute(slug, { recipient_email: to, body });
  return response;
}
