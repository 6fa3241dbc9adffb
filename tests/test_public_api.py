"""The walk: every name of the public surface, checked for the conventions the project
promises (issue 22, "one face").

The surface is every name in the ``__all__`` of the top package and of each layer
(``stream``, ``governance``, ``effects`` with its ``middleware``, ``journal``, ``kernel``,
``agent``), plus the two packages beside the stack (``conformance``, ``testing``). Checked:

- a name means one thing: the same name in two packages is the same object;
- a class is a frozen record with keyword-only fields (attrs), an enum whose lookup by an
  unknown value is ``InvalidArgument``, a ``Protocol``, an error, or a handle (a class with
  behaviour of its own: a public method or property); an attrs class that is not frozen and
  keyword-only is one of the reviewed ``MUTABLE_RECORDS``;
- every exception is a ``LoomError`` with a stable dotted ``code`` that the spec names
  (spec: errors.stable-codes), ``Crash`` aside (a ``BaseException`` by design:
  journal.crash-model);
- every ``details`` value of every error the conformance suite provokes is JSON (spec:
  errors.details-json);
- one warning category (spec: errors.warning-category);
- the docstring of every class and function of a layer names a spec anchor that exists
  (for a constant or a type alias, the docstring of the module it is defined in).
"""

from __future__ import annotations

import ast
import enum
import importlib
import inspect
import json
import re
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import attrs
import pytest

import loom_ref
from loom_ref.conformance.trace import _all_anchors
from loom_ref.errors import InvalidArgument, LoomError, LoomWarning

REPO = Path(__file__).parents[1]
PACKAGE = REPO / "loom_ref"
LAYERS = ["loom_ref", "loom_ref.stream", "loom_ref.governance", "loom_ref.effects",
          "loom_ref.effects.middleware", "loom_ref.journal", "loom_ref.kernel",
          "loom_ref.agent"]
BESIDE = ["loom_ref.conformance", "loom_ref.testing"]
ANCHORS = _all_anchors(REPO / "spec")
SPEC_TEXT = "\n".join(p.read_text() for p in sorted((REPO / "spec").glob("*.md")))
_TOKEN = re.compile(r"(?<![\w.])[a-z][a-z0-9-]*(?:\.[a-z0-9-]+)+(?![\w])")
_CODE = re.compile(r"^[a-z]+(\.[a-z0-9]+(-[a-z0-9]+)*)+$")

#: Reviewed exemptions, each with its reason. Keep these few.
MUTABLE_RECORDS = {
    "KillReport": "accumulated while run_kills runs (kills, restarts, problems appended as "
                  "each check is made) and handed to the caller when the run ends",
    "PowerLossReport": "accumulated while run_power_loss walks every moment and recovery; "
                       "handed to the caller when the run ends",
}
PER_PACKAGE_NAMES = {
    "VECTOR_FUNCTIONS": "each layer's own table of conformance functions (INTERPRETING.md: a "
                        "vector names its function); one idea, one table per layer",
}
NOT_LOOM_ERRORS = {
    "Crash": "a BaseException by design, so no `except Exception` in a body or an effect "
             "can swallow a simulated crash (spec: journal.crash-model)",
}


def surface(packages: list[str]) -> Iterator[tuple[str, str, Any]]:
    for pkg in packages:
        module = importlib.import_module(pkg)
        for name in module.__all__:
            yield pkg, name, getattr(module, name)


EVERYTHING = list(surface(LAYERS + BESIDE))
CLASSES = [(pkg, name, obj) for pkg, name, obj in EVERYTHING if inspect.isclass(obj)]


def test_every_name_resolves_once_per_package() -> None:
    for pkg in LAYERS + BESIDE:
        names = importlib.import_module(pkg).__all__
        assert len(names) == len(set(names)), pkg
    assert len(EVERYTHING) > 400  # the walk really walks


def test_a_name_means_one_thing() -> None:
    """The same name in two packages is the same object (``Execute`` was both the kernel's
    command and the effect body's type; ``DeltaGuard`` both a protocol and ``Any``)."""
    seen: dict[str, tuple[str, Any]] = {}
    clashes = []
    for pkg, name, obj in EVERYTHING:
        if name in seen and seen[name][1] is not obj and name not in PER_PACKAGE_NAMES:
            clashes.append(f"{name}: {seen[name][0]} and {pkg}")
        seen.setdefault(name, (pkg, obj))
    assert clashes == []


def _own_behaviour(cls: type) -> bool:
    """Whether ``cls`` defines a public method or property of its own (or ``__call__``)."""
    for klass in cls.__mro__[:-1]:
        for name, value in vars(klass).items():
            if name == "__call__" or (not name.startswith("_") and (
                    callable(value) or isinstance(value, property | classmethod
                                                  | staticmethod))):
                return True
    return False


@pytest.mark.parametrize(("pkg", "name", "cls"), CLASSES, ids=lambda v: str(v)[:40])
def test_every_class_is_a_record_an_enum_a_protocol_an_error_or_a_handle(
        pkg: str, name: str, cls: type) -> None:
    if issubclass(cls, BaseException):
        return  # the next tests
    if issubclass(cls, enum.Enum):
        # spec: errors.invalid-argument -- an unknown value is refused as a bad argument
        with pytest.raises(InvalidArgument):
            cls("no such value, surely")
        return
    if getattr(cls, "_is_protocol", False):
        return
    if attrs.has(cls):
        frozen = cls.__setattr__ is not object.__setattr__
        kw_only = all(a.kw_only for a in attrs.fields(cls) if a.init)
        if name in MUTABLE_RECORDS:
            assert not frozen, f"{name} is frozen now: drop its exemption"
        else:
            assert frozen and kw_only, f"{pkg}.{name} is not a frozen keyword-only record"
        return
    assert _own_behaviour(cls), (f"{pkg}.{name} holds data but is no record: make it "
                                 "@attrs.frozen(kw_only=True)")


def test_the_exemptions_name_public_classes() -> None:
    names = {name for _, name, _ in CLASSES}
    assert set(MUTABLE_RECORDS) | set(NOT_LOOM_ERRORS) <= names


def _every_error_class() -> set[type[BaseException]]:
    """Every exception class of the surface and every LoomError subclass loom_ref defines."""
    for path in PACKAGE.rglob("*.py"):
        rel = path.relative_to(PACKAGE.parent).with_suffix("")
        if rel.name != "__main__":
            importlib.import_module(".".join(rel.parts).removesuffix(".__init__"))
    found: set[type[BaseException]] = {o for _, _, o in CLASSES if issubclass(o, BaseException)}
    stack: list[type[BaseException]] = [LoomError]
    while stack:
        cls = stack.pop()
        if cls.__module__.startswith("loom_ref"):
            found.add(cls)
        stack.extend(cls.__subclasses__())
    return found


def test_every_error_is_a_loom_error_with_a_stable_code_the_spec_names() -> None:
    # spec: errors.stable-codes
    problems = []
    for cls in sorted(_every_error_class(), key=lambda c: c.__qualname__):
        if issubclass(cls, Warning):
            assert cls is LoomWarning, cls
            continue
        if cls.__name__ in NOT_LOOM_ERRORS:
            assert not issubclass(cls, Exception)  # the reason still holds
            continue
        if not issubclass(cls, LoomError):
            problems.append(f"{cls.__module__}.{cls.__name__} is not a LoomError")
            continue
        code = cls.code
        if cls is not LoomError and not _CODE.match(code):
            problems.append(f"{cls.__name__}.code {code!r} is not a dotted lowercase code")
        if f"`{code}`" not in SPEC_TEXT and f"``{code}``" not in SPEC_TEXT:
            problems.append(f"{cls.__name__}.code {code!r} is not written in spec/")
    assert problems == []
    assert len(_every_error_class()) > 60


def _details_census() -> tuple[list[str], set[str]]:
    """Run the conformance suite in-process, recording every LoomError built; return the
    errors whose details do not round-trip through JSON, and the codes seen."""
    from loom_ref.conformance import InProcessImplementation, LoomRefAdapter, Runner, locate
    from loom_ref.conformance.case import load_cases

    seen: list[LoomError] = []
    original = LoomError.__init__

    def recording(self: LoomError, message: str, *, code: str | None = None,
                  **details: Any) -> None:
        original(self, message, code=code, **details)
        seen.append(self)

    suite = locate()
    cases, problems = load_cases(suite.cases_dir)
    assert problems == []
    LoomError.__init__ = recording  # type: ignore[method-assign]
    try:
        Runner(InProcessImplementation(LoomRefAdapter()), suite, generated=False).run(cases)
    finally:
        LoomError.__init__ = original  # type: ignore[method-assign]
    bad = []
    for err in seen:
        try:
            same = json.loads(json.dumps(err.details)) == err.details
        except (TypeError, ValueError):
            same = False
        if not same:
            bad.append(f"{type(err).__name__} ({err.code}): {err.details!r}"[:300])
    return bad, {err.code for err in seen}


def test_every_details_value_of_every_error_is_json() -> None:
    """spec: errors.details-json -- no default=, and the value must read back equal (a tuple
    would dump as a list and read back as one)."""
    bad, codes = _details_census()
    assert bad == []
    assert len(codes) > 60  # the suite provokes errors of every layer
    assert {"governance.delta-severed", "kernel.nondeterminism", "journal.bad-checksum",
            "stream.wire.missing-field", "effect.denied", "agent.turn-error"} <= codes


def test_a_violation_span_is_a_json_list() -> None:
    # spec: errors.details-json, validators.violation -- the issue's own example
    from loom_ref.governance import GuardChain, RunningTextGuard, SafetyViolation, pii_validator

    guard = GuardChain([RunningTextGuard([pii_validator()])])
    guard.check("card 4111 1111 ")
    with pytest.raises(LoomError) as info:
        guard.check("1111 1111 done")
    assert info.value.details["span"] == [5, 24]
    assert json.loads(json.dumps(info.value.details)) == info.value.details
    with pytest.raises(SafetyViolation) as direct:
        pii_validator().check_output("x 4111 1111 1111 1111")
    assert direct.value.details["span"] == [2, 21]


def test_every_warning_is_issued_with_the_one_category() -> None:
    """spec: errors.warning-category -- no warnings.warn call in loom_ref but the one that
    issues LoomWarning, and each default on_warn reaches it."""
    calls = []
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and (
                    node.func.attr == "warn" and isinstance(node.func.value, ast.Name)
                    and node.func.value.id == "warnings"):
                category = node.args[1] if len(node.args) > 1 else None
                calls.append((path.relative_to(PACKAGE).as_posix(),
                              getattr(category, "id", None)))
    assert calls == [("errors.py", "LoomWarning")]
    assert loom_ref.LoomWarning is LoomWarning
    assert importlib.import_module("loom_ref.kernel").LoomWarning is LoomWarning
    assert issubclass(LoomWarning, UserWarning)


def test_each_default_on_warn_issues_a_loom_warning() -> None:
    # spec: errors.warning-category
    from loom_ref.effects import Effect, EffectRuntime
    from loom_ref.effects.middleware import RedactionMiddleware
    from loom_ref.journal import MemoryStore
    from loom_ref.kernel import Runtime, Workflow

    def streams(ctx: Any, input: Any) -> str:
        assert ctx.on_delta is not None
        ctx.on_delta("text")
        return "text"

    runtime = EffectRuntime([Effect(tool_id="t", execute=streams)],
                            middleware=[RedactionMiddleware(redact_output=lambda o: o)])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        runtime.invoke_transient("t", None, principal="p", on_delta=lambda chunk: None)
    assert [(w.category, str(w.message)) for w in caught] == [
        (LoomWarning, "streaming disabled: inspects output without a delta form")]

    def body(ctx: Any, _: Any) -> Any:
        yield ctx.suspend("g")

    store = MemoryStore()
    kernel = Runtime(store=store, effects=runtime, workflows=[Workflow(name="w", body=body)])
    kernel.start("w", None, execution_id="x")
    store.data["x"] += b'{"seq":3,"ki'  # a torn tail
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        kernel.recover("x")
    assert [w.category for w in caught] == [LoomWarning]
    assert str(caught[0].message).startswith("journal.torn-tail")
    with warnings.catch_warnings():
        warnings.simplefilter("error", LoomWarning)  # one filter catches them all
        with pytest.raises(LoomWarning):
            runtime.invoke_transient("t", None, principal="p", on_delta=lambda chunk: None)


def _home(module_name: str, name: str) -> str:
    """The module that defines ``name``, following ``from X import name`` re-exports."""
    module = importlib.import_module(module_name)
    for node in ast.parse(Path(module.__file__ or "").read_text()).body:
        if isinstance(node, ast.ImportFrom) and node.module and any(
                (a.asname or a.name) == name for a in node.names):
            return _home(node.module, name)
    return module_name


def _home_docstrings() -> Iterator[tuple[str, str, str | None]]:
    """(package, name, the docstring that must name an anchor) for every layer name."""
    for pkg in LAYERS:
        module = importlib.import_module(pkg)
        for name in module.__all__:
            obj = getattr(module, name)
            if inspect.isclass(obj):
                yield pkg, name, obj.__dict__.get("__doc__")
            elif inspect.isfunction(obj):
                yield pkg, name, obj.__doc__
            else:  # a constant or a type alias: the module that defines it
                yield pkg, name, importlib.import_module(_home(pkg, name)).__doc__


def test_every_layer_docstring_names_an_anchor_that_exists() -> None:
    missing = []
    for pkg, name, doc in _home_docstrings():
        if not {t for t in _TOKEN.findall(doc or "") if t in ANCHORS}:
            missing.append(f"{pkg}.{name}")
    assert missing == []


def test_the_anchor_check_can_fail() -> None:
    assert "effects.registration" in ANCHORS and "effects.no-such-rule" not in ANCHORS
    assert {t for t in _TOKEN.findall("see loom_ref.effects and effects.no-such-rule")
            if t in ANCHORS} == set()


def test_the_record_and_details_checks_can_fail() -> None:
    class Bag:
        def __init__(self) -> None:
            self.x = 1

    assert not _own_behaviour(Bag)
    details = {"span": (1, 2)}
    assert json.loads(json.dumps(details)) != details  # what the census refuses
