from .client import client as cx
