import { Composio } from "@composio/core";

export interface MailSession {
  readonly sessionId: string;
  execute(slug: string, args?: Record<string, unknown>): Promise<unknown>;
}

export interface MailClient {
  sessions: {
    create(userId: string, config: { toolkits: string[] }): Promise<MailSession>;
  };
}

export type MailClientFactory = (apiKey: string) => MailClient;

export function createMailClient(
  apiKey: string,
): MailClient {
  return new Composio({ apiKey });
}

export function clientFromEnvironment(
  environment: NodeJS.ProcessEnv = process.env,
  factory: MailClientFactory = createMailClient,
): MailClient | undefined {
  const key = environment.COMPOSIO_API_KEY;
  return key === undefined ? undefined : factory(key);
}
