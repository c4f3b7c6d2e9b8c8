import { Composio } from "@composio/core";

const composio = new Composio();

export async function openAny(userId: string): Promise<any> {
  return composio.create(userId, { toolkits: ["gmail"] });
}

export async function runJob(job: any) {
  return job.execute("GMAIL_SEND_EMAIL", {});
}
