"""Reads: facts by valid time and belief time, recall, history and why."""
