import { Composio } from "@composio/core";

const SEARCH_TOOL = "COMPOSIO_SEARCH_WEB";

type ResearchSession = {
  execute(slug: string, args: Record<string, unknown>): Promise<{ data: unknown }>;
};

// one call of the helper names a write: its send may send it
export function researchTools(session: ResearchSession) {
  async function execute(slug: string, args: Record<string, unknown>) {
    const response = await session.execute(slug, args);
    return response.data;
  }
  return {
    search: (query: string) => execute(SEARCH_TOOL, { query }),
    report: (to: string, body: string) => execute("GMAIL_SEND_EMAIL", { recipient_email: to, body }),
  };
}

export async function create(apiKey: string) {
  const composio = new Composio({ apiKey });
  const session = await composio.create("research-agent");
  return researchTools(session);
}
