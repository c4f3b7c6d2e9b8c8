from composio import Composio

composio = Composio()


def run(slug, arguments, user_id="default"):
    # every call of the helper names a read: tools.execute sends reads only
    return composio.tools.execute(slug, arguments=arguments, user_id=user_id)


def recent():
    return run("GMAIL_FETCH_EMAILS", {"max_results": 10})


def labels():
    return run("GMAIL_LIST_LABELS", {})
