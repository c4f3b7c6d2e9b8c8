from composio import Composio

tools = Composio().tools
