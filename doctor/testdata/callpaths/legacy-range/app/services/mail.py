from agno.agent import Agent
from composio_agno import Action, ComposioToolSet


class MailService:
    def __init__(self, entity_id: str) -> None:
        self.toolset = ComposioToolSet(entity_id=entity_id)

    def agent(self) -> Agent:
        tools = self.toolset.get_tools(
            actions=[Action.GMAIL_SEND_EMAIL],
            check_connected_accounts=True,
        )
        return Agent(tools=tools)
