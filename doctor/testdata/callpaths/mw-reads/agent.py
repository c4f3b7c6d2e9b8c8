from langchain.agents import create_agent
from langchain.agents.middleware import ToolRetryMiddleware

agent = create_agent(
    model,
    tools,
    middleware=[
        ToolRetryMiddleware(
            max_retries=3,
            tools=["GMAIL_FETCH_EMAILS", search_tool],
        )
    ],
)
