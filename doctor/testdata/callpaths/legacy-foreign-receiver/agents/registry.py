class Registry:
    def __init__(self) -> None:
        self._agents = {}

    def all_tools(self) -> list:
        tools = []
        for agent in self._agents.values():
            found = agent.get_tools()
            if found:
                tools.extend(found)
        return tools
