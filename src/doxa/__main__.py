"""``python -m doxa``: the same as the ``doxa`` command (used to spawn ``doxa mcp``)."""

from doxa.interfaces.cli import main

if __name__ == "__main__":
    main(prog_name="doxa")
