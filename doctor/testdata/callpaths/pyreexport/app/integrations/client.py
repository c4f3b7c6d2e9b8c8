from composio import Composio

client = Composio()
