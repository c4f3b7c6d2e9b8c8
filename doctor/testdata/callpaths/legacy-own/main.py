from tools import get_tools, execute_action

for t in get_tools():
    print(execute_action(t))
