"""``loom-ref conformance fuzz``: any implementation, tested differentially against another
(loom-ref by default) through the protocol, on inputs grown from the suite's own cases.

Rules: ``conformance/INTERPRETING.md`` section 14. This package needs hypothesis (the
``fuzz`` extra, or ``pip install hypothesis``); ``import loom_ref`` never imports it.
"""
