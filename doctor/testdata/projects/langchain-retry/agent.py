from langchain.agents.middleware import ToolRetryMiddleware
agent = create_agent(model, tools, middleware=[ToolRetryMiddleware()])
