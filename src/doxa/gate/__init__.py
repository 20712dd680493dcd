"""The gate: the only way into the store (shape, gather, judge, publish, receipt)."""
