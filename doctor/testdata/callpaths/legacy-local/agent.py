from composio_openai import ComposioToolSet, Action
from openai import OpenAI

toolset = ComposioToolSet()
file_tools = toolset.get_tools(actions=[
    Action.FILETOOL_CREATE_FILE,
    Action.FILETOOL_EDIT_FILE,
])
response = OpenAI().chat.completions.create(model="gpt-4o", tools=file_tools, messages=[])
result = toolset.handle_tool_calls(response)
