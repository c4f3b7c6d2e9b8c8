from composio_langgraph import Action, ComposioToolSet
from langgraph.prebuilt import create_react_agent

toolset = ComposioToolSet()
# tools named one by one, all of them reads: sent again, they change nothing
search_tools = toolset.get_tools(actions=[Action.TAVILY_TAVILY_SEARCH, Action.GMAIL_FETCH_EMAILS])
agent = create_react_agent("openai:gpt-4o-mini", search_tools)
