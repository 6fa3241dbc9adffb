"""Reach by coverage: the conformance suite run under line and branch coverage of
``loom_ref/``, and what it leaves uncovered outside the reviewed Python-only regions
(``python -m tools.coverage``)."""
