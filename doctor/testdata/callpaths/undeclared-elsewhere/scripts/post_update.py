from composio import Composio

client = Composio()


def publish(text):
    try:
        out = client.tools.execute(
            slug="FACEBOOK_CREATE_POST",
            user_id="owner-1",
            arguments={"page_id": "1001", "message": text},
            dangerously_skip_version_check=True,
        )
        print(out)
    except Exception as err:
        print("could not publish:", err)


publish("weekly update")
