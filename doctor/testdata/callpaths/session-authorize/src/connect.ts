import { sessionFor } from "./session";

// the session's link: a new connection request each call
export async function connect(userId: string, toolkit: string) {
  const session = await sessionFor(userId);
  const request = await session.authorize(toolkit, { callbackUrl: "https://example.com/cb" });
  return request.redirectUrl;
}

export async function connectLater(userId: string, toolkit: string) {
  const session = await sessionFor(userId);
  return start(session, toolkit);
}

async function start(s: Awaited<ReturnType<typeof sessionFor>>, toolkit: string) {
  return (await s.authorize(toolkit)).redirectUrl;
}

// oauth.authorize(...) is another library's
declare const oauth: { authorize(scope: string): Promise<void> };
export const login = () => oauth.authorize("email");
