import type { MailClient, MailSession } from "../config/client.js";

export async function openMailSession(
  client: MailClient,
  userId: string,
): Promise<MailSession> {
  return client.sessions.create(userId, { toolkits: ["gmail"] });
}
