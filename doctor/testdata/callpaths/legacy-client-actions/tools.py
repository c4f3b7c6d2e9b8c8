from composio import Composio


def run(composio: Composio, entity_id: str, slug: str, arguments: dict):
    # the legacy client sends on its own, without a toolset
    from composio.client.enums import Action

    profile = composio.actions.execute(action=Action.GMAIL_GET_PROFILE, params={}, entity_id=entity_id)
    return composio.actions.execute(
        action=getattr(Action, slug),
        params=arguments,
        entity_id=entity_id,
    ), profile
