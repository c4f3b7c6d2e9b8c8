from composio import Composio

composio = Composio()
session = composio.tool_router.create(user_id="u1")
method = "execute"
result = getattr(session, method)("SLACK_SEND_MESSAGE", {"text": "hi"})
