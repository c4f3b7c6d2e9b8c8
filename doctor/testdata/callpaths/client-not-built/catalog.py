from composio import Composio

composio = Composio()


def sample_tools(toolkit: str) -> list[str]:
    tools = composio.tools.get_raw_composio_tools(toolkits=[toolkit], limit=10)
    return [tool.slug for tool in tools]
