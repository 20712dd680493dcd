"""What an auditor and an operator use beside the write path: the receipt chain's
verification, exports and imports, backups, and the purge that finishes an erasure.

Built on the store and the gate's record of decisions, never on :class:`doxa.Memory`: the
memory calls these, not the other way round.
"""
