from setuptools import setup
setup(name="composio", packages=["composio"])
