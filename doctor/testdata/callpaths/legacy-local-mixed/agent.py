from composio_openai import ComposioToolSet, Action
from openai import OpenAI

toolset = ComposioToolSet()
tools = toolset.get_tools(actions=[Action.FILETOOL_CREATE_FILE])
tools += toolset.get_tools(actions=["GITHUB_STAR_A_REPOSITORY_FOR_THE_AUTHENTICATED_USER"])
response = OpenAI().chat.completions.create(model="gpt-4o", tools=tools, messages=[])
result = toolset.handle_tool_calls(response)
