from composio import Composio


def run_agent(prompt, session):
    return session.execute("SLACK_SEND_MESSAGE", {"text": prompt})


composio = Composio()
session = composio.tool_router.create(user_id="u1")
result = run_agent(
    "deploy done",
    session,
)
