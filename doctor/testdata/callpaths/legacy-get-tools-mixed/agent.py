from composio_langgraph import Action, App, ComposioToolSet
from langgraph.prebuilt import create_react_agent

toolset = ComposioToolSet()
search_tools = toolset.get_tools(actions=[Action.TAVILY_TAVILY_SEARCH])
calendar_tools = toolset.get_tools(actions=[Action.GOOGLECALENDAR_CREATE_EVENT])
# an app's tools: the app holds writes too
slack_tools = toolset.get_tools(apps=[App.SLACK])
agent = create_react_agent("openai:gpt-4o-mini", search_tools + calendar_tools + slack_tools)
