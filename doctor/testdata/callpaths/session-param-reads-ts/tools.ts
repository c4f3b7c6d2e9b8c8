import { Composio } from "@composio/core";

const SEARCH_TOOL = "COMPOSIO_SEARCH_WEB";
const FETCH_TOOL = "COMPOSIO_SEARCH_FETCH_URL_CONTENT";

type ResearchSession = {
  execute(slug: string, args: Record<string, unknown>): Promise<{ data: unknown }>;
};

// every call of the helper names a read: the session sends reads only
export function researchTools(session: ResearchSession) {
  async function execute(slug: string, args: Record<string, unknown>) {
    const response = await session.execute(slug, args);
    return response.data;
  }
  return {
    search: (query: string) => execute(SEARCH_TOOL, { query }),
    fetchUrl: (url: string) => execute(FETCH_TOOL, { url }),
  };
}

export async function create(apiKey: string) {
  const composio = new Composio({ apiKey });
  const session = await composio.create("research-agent");
  return researchTools(session);
}
