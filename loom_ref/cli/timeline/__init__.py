"""The timeline of an execution, and the pictures drawn from it: ``loom-ref journal show
--format text|json|html|mermaid`` and ``loom-ref demo --html``."""
