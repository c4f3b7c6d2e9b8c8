from composio import Composio
composio = Composio()
session = composio.tool_router.create(user_id="u1")
