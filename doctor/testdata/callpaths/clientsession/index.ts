import { Composio } from "@composio/core";

const composio = new Composio();
// a client with request options of its own: not a tool-router session
const withHeaders = composio.createSession({ headers: { "x-team": "ops" } });
const tools = await withHeaders.tools.get("default", "HACKERNEWS_GET_USER");
