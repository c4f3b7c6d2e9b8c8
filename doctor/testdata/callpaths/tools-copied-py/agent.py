from agents import Agent, Runner
from composio import Composio

composio = Composio()
session = composio.tool_router.create(user_id="u1", toolkits=["slack"])


def answer(question):
    print(sorted(list(session.tools()), key=str))
    Runner.run_sync(Agent(name="helper", tools=list(session.tools())), question)
