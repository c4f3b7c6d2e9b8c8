from composio import Action, ComposioToolSet


def today(entity_id: str):
    toolset = ComposioToolSet(entity_id=entity_id)
    result = toolset.execute_action(
        action=Action.GOOGLECALENDAR_LIST_EVENTS,
        params={"calendarId": "primary"},
    )
    return result.get("response", {})


def inbox(entity_id: str):
    return ComposioToolSet(entity_id=entity_id).execute_action(Action.GMAIL_FETCH_EMAILS, {"max_results": 5})
