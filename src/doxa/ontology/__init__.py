"""The ontology as the gate and judges read it: the property table, and its OWL RL closure.

:mod:`doxa.ontology.properties` says what the closed ontology means for one statement
(equivalent, inverse and sub-properties); :mod:`doxa.ontology.closure` keeps that closure in
the store, computed once with owlrl whenever the ontology changes.
"""

from doxa.ontology.properties import PropertyTable, Statement, statement_key

__all__ = ["PropertyTable", "Statement", "statement_key"]
