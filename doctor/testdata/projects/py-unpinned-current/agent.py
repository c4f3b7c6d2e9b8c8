from composio_gemini import ComposioToolSet, Action

toolset = ComposioToolSet()
tools = toolset.get_tools(actions=[Action.GMAIL_SEND_EMAIL])
