class OpenAIProvider:
    def execute_tool_call(self, client, user_id, tool_call):
        return client.tools.execute(slug=tool_call.name, arguments=tool_call.arguments, user_id=user_id)
