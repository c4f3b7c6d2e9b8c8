from openai import OpenAI
from composio_openai import ComposioToolSet, App


def apply(changes):
    client = OpenAI()
    toolset = ComposioToolSet()
    tools = toolset.get_tools(apps=[App.GITHUB])
    assistant = client.beta.assistants.create(name="Triage", instructions="File issues", model="gpt-4o", tools=tools)
    thread = client.beta.threads.create()
    run = client.beta.threads.runs.create(thread_id=thread.id, assistant_id=assistant.id)
    return toolset.wait_and_handle_assistant_tool_calls(
        client=client,
        run=run,
        thread=thread,
    )
