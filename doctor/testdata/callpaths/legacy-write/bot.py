from composio_openai import ComposioToolSet, Action
from openai import OpenAI

toolset = ComposioToolSet()
tools = toolset.get_tools(actions=[Action.GMAIL_SEND_EMAIL])
response = OpenAI().chat.completions.create(model="gpt-4o", tools=tools, messages=[])
result = toolset.handle_tool_calls(response)
