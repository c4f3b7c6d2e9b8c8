from composio import ComposioToolSet, App

toolset = ComposioToolSet()
# only reads the catalogue: which actions exist
schemas = toolset.get_action_schemas(apps=[App.GMAIL])
for s in schemas:
    print(s.name)
