import { Composio } from "@composio/core";
const composio = new Composio();
const sessions = new Map<string, any>();
export async function open(u: string) { sessions.set(u, await composio.create(u)); }
export async function send(u: string) { return sessions.get(u)?.execute("GMAIL_SEND_EMAIL", {}); }
