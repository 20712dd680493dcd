"""``doxa.Memory`` and the objects it hands each audience.

The agent's verbs live on :class:`Memory` (:mod:`doxa.memory.memory`); ``memory.owner``
(:class:`Owner`), ``memory.admin`` (:class:`Admin`), ``memory.schema`` (:class:`Schema`) and
``memory.files`` (:class:`Files`) carry the owner's decisions, the operator's commands, the
schema administration and the files. :mod:`doxa.memory.opening` opens a store the one way
every entry point does; :mod:`doxa.memory.decisions` lists each owner decision once.
"""

from doxa.memory.admin import Admin
from doxa.memory.files import Files
from doxa.memory.memory import Memory
from doxa.memory.opening import finish_pending_restore, open_location
from doxa.memory.owner import SERVER_FILES_NOT_PURGED, Owner
from doxa.memory.schema import Schema

__all__ = [
    "SERVER_FILES_NOT_PURGED",
    "Admin",
    "Files",
    "Memory",
    "Owner",
    "Schema",
    "finish_pending_restore",
    "open_location",
]
