from composio.core.tools import Tools

__all__ = ["Tools"]
