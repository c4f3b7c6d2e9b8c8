from functools import lru_cache
from composio import Composio


@lru_cache
def get_composio():
    return Composio()
