from composio import Composio

composio = Composio()


def session_tools(user_id):
    session = composio.tool_router.create(user_id=user_id)
    return session.tools()
