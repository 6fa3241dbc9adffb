"""loom_ref: the reference implementation and executable specification of Loom's durable
agent runtime. See ``spec/`` for the normative text; this package is that text, executable.
"""

from loom_ref.errors import InvalidArgument, LoomError

__version__ = "0.1.0"

__all__ = ["InvalidArgument", "LoomError", "__version__"]
