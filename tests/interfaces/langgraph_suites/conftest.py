"""``shim.py`` patches LangGraph's stores when imported: it is copied into the LangGraph
suites' folders by the test, never imported by doxa's own test run."""

collect_ignore = ["shim.py"]
