"""Checkers: prove with hypothesis that a validator's delta form sees what its output form
sees however the text is split, and that hold-back never leaks.

Rules (``spec/governance.md`` § 4.3, § 4.4; ADR 0119 decision 10):

- The oracle is the output form. A stream delivers deltas ``d0, d1, ...``; after delta ``i``
  a consumer holds ``P_i = d0 + ... + di``. A guard over the delta form (by default
  ``RunningTextGuard([validator], window)``, exactly as a runtime runs it) MUST sever at the
  first delta ``i`` whose ``P_i`` the output form rejects, and at no earlier delta
  (spec: guards.running-text, guards.before-delivery). Accepting that delta *lets through* a
  text the output form rejects; severing earlier *severs* a text the output form accepts.
  Judging by the text delivered so far, not by the whole text, is what lets a correct delta
  form be conservative where the spec says it must be (spec: guards.limit-prefix: a digit run
  that is a valid card so far severs even if more digits would have followed).
- "A pattern wider than the window across deltas can evade the delta form" (ADR 0119 #10,
  spec: guards.limit-window): the checker does not hide that limit, it finds it, and the
  counterexample says so when the output form's match is wider than the window.
- Hold-back (extension, spec: guards.hold-back, guards.hold-back-flush): severing follows the
  same oracle; released text is always a prefix of the text received, never holds the first
  character of a match, and on success released + flushed == the text.
- A failure is an ``AssertionError`` whose message shows the text, the split, what the output
  form said, what the delta form did and at which delta; hypothesis shrinks it to a minimal
  one first. :func:`check_split` and :func:`check_hold_back_split` judge one split without
  hypothesis: paste a counterexample into a plain regression test.
- A validator with state in its forms is passed as a factory (a zero-argument callable
  returning a fresh ``SafetyValidator``), called once per example.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol

import attrs

from loom_ref.errors import InvalidArgument
from loom_ref.governance import (
    DEFAULT_WINDOW,
    DeltaGuard,
    DeltaSevered,
    HoldBackGuard,
    PatternScan,
    RunningTextGuard,
    SafetyValidator,
    SafetyViolation,
)
from loom_ref.testing._deps import require_hypothesis

require_hypothesis()

import hypothesis  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from loom_ref.testing.strategies.text import PlantedText, delta_splits  # noqa: E402

__all__ = [
    "GuardFactory",
    "HoldBackFactory",
    "SplitCase",
    "SplitStrategy",
    "ValidatorSource",
    "check_delta_form",
    "check_guard_never_leaks",
    "check_hold_back_split",
    "check_split",
    "split_cases",
]


class HoldBack(Protocol):
    """What :func:`check_guard_never_leaks` drives: ``feed`` returns the text now released,
    ``flush`` the held remainder (as :class:`~loom_ref.governance.HoldBackGuard`)."""

    def feed(self, delta: str) -> str: ...

    def flush(self) -> str: ...


ValidatorSource = SafetyValidator | Callable[[], SafetyValidator]
"""A validator, or a factory of fresh ones (for forms that keep state)."""

GuardFactory = Callable[[SafetyValidator, int], DeltaGuard]
"""``factory(validator, window)`` -> the guard under test (default ``RunningTextGuard``)."""

HoldBackFactory = Callable[[SafetyValidator, int], HoldBack]
"""``factory(validator, window)`` -> the hold-back guard under test (default ``HoldBackGuard``)."""

SplitStrategy = Callable[[str, "tuple[int, int] | None"], st.SearchStrategy[tuple[str, ...]]]
"""``splits(text, span)`` -> a strategy of splits of ``text`` (default :func:`delta_splits`)."""


@attrs.frozen(kw_only=True)
class SplitCase:
    """One example: a text, the deltas it was split into, and a planted match's span."""

    text: str
    deltas: tuple[str, ...]
    span: tuple[int, int] | None = None


@st.composite
def split_cases(
    draw: st.DrawFn,
    texts: st.SearchStrategy[str] | st.SearchStrategy[PlantedText],
    splits: SplitStrategy | None = None,
) -> SplitCase:
    """A text drawn from ``texts`` (a ``str`` or a :class:`PlantedText`) and a split of it."""
    drawn: object = draw(texts, label="text")
    if isinstance(drawn, PlantedText):
        text, span = drawn.text, drawn.span
    elif isinstance(drawn, str):
        text, span = drawn, None
    else:
        raise InvalidArgument(f"texts must draw str or PlantedText, got {type(drawn).__name__}")
    make = splits if splits is not None else delta_splits
    deltas = draw(make(text, span), label="deltas")
    return SplitCase(text=text, deltas=tuple(deltas), span=span)


# ---- verdicts -------------------------------------------------------------------------------


def _source(validator: ValidatorSource) -> Callable[[], SafetyValidator]:
    if isinstance(validator, SafetyValidator):
        return lambda: validator
    if callable(validator):
        return validator
    raise InvalidArgument(
        f"validator must be a SafetyValidator or a factory of one, got {type(validator).__name__}"
    )


def _fresh(make: Callable[[], SafetyValidator]) -> SafetyValidator:
    v = make()
    if not isinstance(v, SafetyValidator):
        raise InvalidArgument(f"the validator factory returned {type(v).__name__}")
    if v.output_form is None:
        raise InvalidArgument(
            f"validator {v.name!r} has no output form: there is nothing to check its delta "
            "form against"
        )
    return v


def _window(window: object) -> int:
    if isinstance(window, bool) or not isinstance(window, int) or window < 1:
        raise InvalidArgument(f"window must be a positive int, got {window!r}")
    return window


def _output(v: SafetyValidator, text: str) -> SafetyViolation | None:
    try:
        v.check_output(text)
    except SafetyViolation as violation:
        return violation
    except Exception as exc:
        raise AssertionError(
            f"the output form of validator {v.name!r} raised {type(exc).__name__}: {exc} on "
            f"{text!r}; a form rejects only by raising SafetyViolation"
        ) from exc
    return None


def _said(violation: SafetyViolation | None) -> str:
    if violation is None:
        return "accepts"
    span = violation.details.get("span")
    where = f", span [{span[0]}, {span[1]})" if isinstance(span, list) else ""
    return f"rejects (rule {violation.details.get('rule')!r}{where})"


def _first_start(v: SafetyValidator, text: str, violation: SafetyViolation) -> int:
    """Where the leftmost match of ``text`` starts (of any rule, for a pattern validator)."""
    form = v.output_form
    if isinstance(form, PatternScan):
        starts = [m.start() for r in form.rules if (m := r.first_match(text)) is not None]
        if starts:
            return min(starts)
    span = violation.details.get("span")
    return int(span[0]) if isinstance(span, list) else 0


def _width_note(violation: SafetyViolation | None, window: int) -> str:
    span = violation.details.get("span") if violation is not None else None
    if not isinstance(span, list) or span[1] - span[0] <= window:
        return ""
    return (
        f"\nnote: the match is {span[1] - span[0]} characters wide and the window is {window}: "
        "this is the limit ADR 0119 #10 states plainly, 'a pattern wider than the window "
        "across deltas can evade the delta form (the output form still sees the whole "
        "result, after the tail has it)' (spec: guards.limit-window)."
    )


class _Report:
    """Builds the counterexample message of one split."""

    def __init__(
        self, title: str, v: SafetyValidator, text: str, deltas: Sequence[str], window: int
    ) -> None:
        self.lines = [
            f"{title} (validator {v.name!r}, window {window}):",
            f"  text:   {text!r}",
            f"  deltas: {list(deltas)!r}  ({len(deltas)} deltas)",
        ]
        self.v = v
        self.text = text
        self.window = window

    def fail(self, headline: str, *details: str, note: str = "") -> AssertionError:
        whole = _output(self.v, self.text)
        body = [
            self.lines[0],
            headline,
            *self.lines[1:],
            *(f"  {d}" for d in details),
            f"  output form on the whole text: {_said(whole)}",
        ]
        return AssertionError("\n".join(body) + note)


# ---- the running-text guard -----------------------------------------------------------------


def check_split(
    validator: ValidatorSource,
    text: str,
    deltas: Sequence[str],
    *,
    window: int = DEFAULT_WINDOW,
    guard_factory: GuardFactory | None = None,
) -> None:
    """Judge one split (see the module rules); ``AssertionError`` with the counterexample."""
    v = _fresh(_source(validator))
    window = _window(window)
    if "".join(deltas) != text:
        raise InvalidArgument("the deltas do not join to the text")
    guard = (guard_factory or _running_text_guard)(v, window)
    report = _Report("delta form disagrees with the output form", v, text, deltas, window)
    delivered = ""
    for i, delta in enumerate(deltas):
        running = getattr(guard, "running_text", None)
        handed = f"the running text {running + delta!r}" if isinstance(running, str) else "it"
        so_far = delivered + delta
        expected = _output(v, so_far)
        severed: DeltaSevered | None = None
        try:
            guard.check(delta)
        except DeltaSevered as exc:
            severed = exc
        except Exception as exc:
            raise report.fail(
                f"the delta form raised {type(exc).__name__} at delta {i} instead of returning "
                "or raising SafetyViolation:",
                f"delta {i}: {delta!r}",
                f"error: {exc}",
            ) from exc
        if severed is None and expected is not None:
            raise report.fail(
                f"LET THROUGH: delta {i} was delivered, but the output form rejects the text "
                "delivered so far:",
                f"delta {i}: {delta!r}",
                f"delivered so far (deltas 0..{i}): {so_far!r}",
                f"output form on it: {_said(expected)}",
                f"delta form, handed {handed}: accepted",
                note=_width_note(expected, window),
            )
        if severed is not None:
            if expected is None:
                raise report.fail(
                    f"SEVERED: the stream was severed at delta {i}, but the output form accepts "
                    "the text delivered so far with it:",
                    f"delta {i}: {delta!r}",
                    f"text so far with delta {i}: {so_far!r}",
                    f"output form on it: {_said(expected)}",
                    f"delta form, handed {handed}: rejected "
                    f"(rule {severed.details.get('rule')!r}, code {severed.details.get('cause')})",
                )
            return
        delivered = so_far


def _running_text_guard(v: SafetyValidator, window: int) -> DeltaGuard:
    return RunningTextGuard([v], window)


def _settings(
    max_examples: int, settings: hypothesis.settings | None, derandomize: bool | None
) -> hypothesis.settings:
    if settings is not None:
        return settings
    kwargs: dict[str, Any] = {}
    if derandomize is not None:
        kwargs["derandomize"] = derandomize
    return hypothesis.settings(
        max_examples=max_examples,
        deadline=None,
        report_multiple_bugs=False,
        suppress_health_check=[
            hypothesis.HealthCheck.too_slow,
            hypothesis.HealthCheck.filter_too_much,
            hypothesis.HealthCheck.data_too_large,
        ],
        **kwargs,
    )


def check_delta_form(
    validator: ValidatorSource,
    *,
    texts: st.SearchStrategy[str] | st.SearchStrategy[PlantedText],
    window: int = DEFAULT_WINDOW,
    splits: SplitStrategy | None = None,
    guard_factory: GuardFactory | None = None,
    max_examples: int = 200,
    derandomize: bool | None = None,
    settings: hypothesis.settings | None = None,
) -> None:
    """Run hypothesis: for texts drawn from ``texts`` and every kind of split (default
    :func:`~loom_ref.testing.strategies.delta_splits`; a :class:`PlantedText` also gets cuts
    inside its match), the guard over ``validator``'s delta form severs exactly at the first
    delta whose text-so-far the output form rejects. Fails with the shrunk counterexample.

    Call it from a plain test function (not from inside another ``@given`` test).
    ``settings`` replaces the defaults (``max_examples``, no deadline, one bug reported);
    ``derandomize=True`` makes the search the same on every run.
    """
    make = _source(validator)
    _fresh(make)  # refuse a validator without an output form now, not per example
    window = _window(window)

    @_settings(max_examples, settings, derandomize)
    @hypothesis.given(case=split_cases(texts, splits))
    def delta_form_agrees_with_output_form(case: SplitCase) -> None:
        check_split(make, case.text, case.deltas, window=window, guard_factory=guard_factory)

    delta_form_agrees_with_output_form()


# ---- hold-back ------------------------------------------------------------------------------


def _hold_back_guard(v: SafetyValidator, window: int) -> HoldBack:
    return HoldBackGuard([v], window)


def check_hold_back_split(
    validator: ValidatorSource,
    text: str,
    deltas: Sequence[str],
    *,
    window: int = DEFAULT_WINDOW,
    guard_factory: HoldBackFactory | None = None,
) -> None:
    """Judge one split of a hold-back guard (see the module rules)."""
    v = _fresh(_source(validator))
    window = _window(window)
    if "".join(deltas) != text:
        raise InvalidArgument("the deltas do not join to the text")
    guard = (guard_factory or _hold_back_guard)(v, window)
    report = _Report(
        "hold-back guard leaks or disagrees with the output form", v, text, deltas, window
    )
    received = ""
    released = ""
    for i, delta in enumerate(deltas):
        so_far = received + delta
        expected = _output(v, so_far)
        try:
            piece = guard.feed(delta)
        except DeltaSevered as severed:
            if expected is None:
                raise report.fail(
                    f"SEVERED: the stream was severed at delta {i}, but the output form accepts "
                    "the text so far with it:",
                    f"text so far with delta {i}: {so_far!r}",
                    f"rule {severed.details.get('rule')!r}",
                ) from None
            start = _first_start(v, so_far, expected)
            if len(released) > start:
                raise report.fail(
                    f"LEAKED: before the sever at delta {i}, the released text holds the first "
                    f"character of a match (the match starts at {start}):",
                    f"released: {released!r}",
                    f"text so far with delta {i}: {so_far!r}",
                    f"output form on it: {_said(expected)}",
                ) from None
            return
        except Exception as exc:
            raise report.fail(
                f"the hold-back guard raised {type(exc).__name__} at delta {i}: {exc}"
            ) from exc
        if not isinstance(piece, str):
            raise report.fail(f"feed returned {piece!r} at delta {i}, not a str")
        released += piece
        if not so_far.startswith(released):
            raise report.fail(
                f"RELEASED text that is not a prefix of the text received (delta {i}):",
                f"released: {released!r}",
                f"received: {so_far!r}",
            )
        if expected is not None:
            raise report.fail(
                f"LET THROUGH: delta {i} was accepted, but the output form rejects the text "
                "so far:",
                f"text so far with delta {i}: {so_far!r}",
                f"output form on it: {_said(expected)}",
                f"released so far: {released!r}",
                note=_width_note(expected, window),
            )
        received = so_far
    flushed = guard.flush()
    if released + flushed != text:
        raise report.fail(
            "FLUSH: released + flushed is not the whole text:",
            f"released: {released!r}",
            f"flushed:  {flushed!r}",
        )


def check_guard_never_leaks(
    validator: ValidatorSource,
    *,
    texts: st.SearchStrategy[str] | st.SearchStrategy[PlantedText],
    window: int = DEFAULT_WINDOW,
    splits: SplitStrategy | None = None,
    guard_factory: HoldBackFactory | None = None,
    max_examples: int = 200,
    derandomize: bool | None = None,
    settings: hypothesis.settings | None = None,
) -> None:
    """Run hypothesis over the hold-back mode (**extension**, spec: guards.hold-back): no
    released text holds the first character of a match, severing follows the output form, and
    released + flushed == text on success. Arguments as :func:`check_delta_form`;
    ``guard_factory(validator, window)`` builds the guard (default ``HoldBackGuard``)."""
    make = _source(validator)
    _fresh(make)
    window = _window(window)

    @_settings(max_examples, settings, derandomize)
    @hypothesis.given(case=split_cases(texts, splits))
    def hold_back_never_leaks(case: SplitCase) -> None:
        check_hold_back_split(
            make, case.text, case.deltas, window=window, guard_factory=guard_factory
        )

    hold_back_never_leaks()
