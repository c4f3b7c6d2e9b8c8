from composio import Composio

from app.agent import build_agent

composio = Composio()
session = composio.tool_router.create(user_id="u1", toolkits=["github"])
agent = build_agent(session, "triage my issues")
