from composio_openai import Action, ComposioToolSet
from openai import OpenAI

client = OpenAI()
toolset = ComposioToolSet(entity_id="default")

tools = toolset.get_tools(actions=[Action.GOOGLECALENDAR_CREATE_EVENT])
response = client.chat.completions.create(model="gpt-4o", tools=tools, messages=[])
result = toolset.handle_tool_calls(response)
print(result)
