import json

from composio import Composio
from openai import OpenAI

composio = Composio()


def run(user_id: str, prompt: str) -> list:
    session = composio.create(user_id=user_id, toolkits=["gmail"])
    schemas = list(session.tools())
    reply = OpenAI().chat.completions.create(
        model="gpt-4o", tools=schemas, messages=[{"role": "user", "content": prompt}]
    )
    results = []
    for call in reply.choices[0].message.tool_calls or []:
        arguments = json.loads(call.function.arguments)
        results.append(session.execute(call.function.name, arguments=arguments))
    return results
