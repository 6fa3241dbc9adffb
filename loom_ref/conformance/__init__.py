"""The conformance suite's machinery: case model, protocol, scenario interpreter, adapters,
runner, generated checks, lint and reports. The contract is ``conformance/INTERPRETING.md``.

This package sits beside the stack and drives loom_ref through its public API, as any other
implementation is driven through the protocol.
"""

from loom_ref.conformance.case import Case, CaseFileError, Family, Tier, load_case, load_cases
from loom_ref.conformance.derive import MODES, derive
from loom_ref.conformance.impl import (
    ImplementationCrash,
    InProcessImplementation,
    SubprocessImplementation,
    TransportError,
)
from loom_ref.conformance.inprocess import PROTOCOL_VERSION, LoomRefAdapter
from loom_ref.conformance.lint import lint
from loom_ref.conformance.match import Mismatch, match
from loom_ref.conformance.model import model_expectation
from loom_ref.conformance.random_cases import random_case, random_cases
from loom_ref.conformance.runner import CaseResult, CaseStatus, Runner, SuiteResult
from loom_ref.conformance.schemas import SchemaSet
from loom_ref.conformance.suite import Suite, locate, suite_at

__all__ = [
    "MODES",
    "PROTOCOL_VERSION",
    "Case",
    "CaseFileError",
    "CaseResult",
    "CaseStatus",
    "Family",
    "ImplementationCrash",
    "InProcessImplementation",
    "LoomRefAdapter",
    "Mismatch",
    "Runner",
    "SchemaSet",
    "SubprocessImplementation",
    "Suite",
    "SuiteResult",
    "Tier",
    "TransportError",
    "derive",
    "lint",
    "load_case",
    "load_cases",
    "locate",
    "match",
    "model_expectation",
    "random_case",
    "random_cases",
    "suite_at",
]
