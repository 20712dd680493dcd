"""The memory-tool backend as the Anthropic SDK's own memory tool class (``pip install
'doxa[anthropic]'``).

:func:`anthropic_memory_tool` subclasses the SDK's ``BetaAbstractMemoryTool`` (the helper
its tool runner calls for ``memory_20250818``), each of the six commands answered by
:class:`~doxa.interfaces.memory_tool.MemoryToolHandler`; an answer led by ``Error:`` is
raised as the SDK's ``ToolError``, so the model gets it with ``is_error: true``. The SDK is
imported only here, when called: doxa works without it.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

from doxa.errors import DoxaError
from doxa.interfaces.memory_tool import COMMANDS, MemoryToolHandler
from doxa.memory import Memory

__all__ = ["SdkMissing", "anthropic_memory_tool"]


class SdkMissing(DoxaError, ImportError):
    """The Anthropic SDK is not installed: ``pip install 'doxa[anthropic]'``."""


def anthropic_memory_tool(memory: Memory, *, authority: str = "agent") -> Any:
    """A ``BetaAbstractMemoryTool`` over ``memory``'s scope, for the SDK's tool runner
    (``client.beta.messages.tool_runner(tools=[tool], ...)``); raises :class:`SdkMissing`
    when the SDK is not installed."""
    try:
        tools = importlib.import_module("anthropic.lib.tools")
    except ImportError as error:
        raise SdkMissing(
            "The Anthropic SDK is not installed; run pip install 'doxa[anthropic]', or use "
            "doxa.interfaces.memory_tool.MemoryToolHandler with your own loop."
        ) from error
    handler = MemoryToolHandler(memory, authority=authority)

    def command(name: str) -> Callable[[Any, Any], str]:
        def run(self: Any, given: Any) -> str:
            said = handler.execute({**given.model_dump(exclude_none=True), "command": name})
            if said.startswith("Error: "):
                raise tools.ToolError(said)
            return said

        run.__name__ = name
        run.__doc__ = f"The memory tool's {name}, through doxa's gate."
        return run

    methods = {name: command(name) for name in COMMANDS}
    cls = type("DoxaMemoryTool", (tools.BetaAbstractMemoryTool,), methods)
    return cls()
