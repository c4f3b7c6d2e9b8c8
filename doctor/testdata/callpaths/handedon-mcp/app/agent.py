from agents import Agent, HostedMCPTool


def build_agent(session, instructions):
    url = session.mcp.url
    return Agent(instructions=instructions, tools=[HostedMCPTool(server_url=url)])
