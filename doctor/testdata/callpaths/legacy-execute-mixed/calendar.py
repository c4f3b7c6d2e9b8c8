from composio import Action, ComposioToolSet


def today(entity_id: str):
    toolset = ComposioToolSet(entity_id=entity_id)
    result = toolset.execute_action(
        action=Action.GOOGLECALENDAR_LIST_EVENTS,
        params={"calendarId": "primary"},
    )
    return result.get("response", {})


def book(entity_id: str, summary: str):
    toolset = ComposioToolSet(entity_id=entity_id)
    return toolset.execute_action(
        params={"calendarId": "primary", "summary": summary},
        action="GOOGLECALENDAR_CREATE_EVENT",
    )
