from composio import Composio

composio = Composio()
session = composio.tool_router.create(user_id="test-user", toolkits=["slack"])


def show():
    tools = session.tools()
    print(f"{len(tools)} tools")
    for tool in tools:
        print(tool.name)


show()
