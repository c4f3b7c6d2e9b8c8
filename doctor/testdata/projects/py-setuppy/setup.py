from setuptools import setup, find_packages

# composio==0.1.0 in a comment is not a requirement
setup(
    name="agent",
    version="0.3.0",
    packages=find_packages(),
    install_requires=[
        "requests>=2.31",
        'composio>=0.16.0,<0.18',  # the fixed SDK
        "pydantic[email]>=2",
    ],
    extras_require={
        "legacy": ["composio-core==0.7.1"],
        "dev": ["pytest"],
    },
)
