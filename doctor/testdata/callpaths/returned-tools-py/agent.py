from agents import Agent, Runner

from tools import session_tools


def answer(user_id, question):
    tools = session_tools(user_id)
    print(len(tools))
    agent = Agent(name="helper", tools=tools)
    return Runner.run_sync(agent, question)
