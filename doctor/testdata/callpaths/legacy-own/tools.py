def get_tools():
    return ["search", "calc"]


def execute_action(name):
    return name.upper()
