"""loom_ref: the reference implementation and executable specification of Loom's durable
agent runtime. See ``spec/`` for the normative text; this package is that text, executable.

The top level holds what every layer shares: the one error root :class:`LoomError` (spec:
errors.stable-codes), :class:`InvalidArgument` (spec: errors.invalid-argument), the one
warning category :class:`LoomWarning` (spec: errors.warning-category), and ``__version__``.
"""

from loom_ref.errors import InvalidArgument, LoomError, LoomWarning

__version__ = "0.9.0"

__all__ = ["InvalidArgument", "LoomError", "LoomWarning", "__version__"]
