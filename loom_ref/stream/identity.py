"""``AppIdentity``: the static public identity every adapter sends to providers.

Rules (``spec/stream.md`` § Attribution):

- Every provider HTTP request carries the attribution ``User-Agent`` from
  :func:`attribution_headers` (seed 001: "Adapters send ``attributionHeaders()`` — the
  ``User-Agent`` baseline"). (spec: stream.attribution.user-agent)
- The identity is static public product facts: "no secrets, paths, session ids, or per-user
  identifiers, and nothing per-request may influence the values"; only ``User-Agent`` is sent.
  (spec: stream.attribution.static)
"""

from __future__ import annotations

from typing import Any

import attrs

from loom_ref import __version__
from loom_ref.errors import InvalidArgument

__all__ = ["APP_IDENTITY", "AppIdentity", "attribution_headers"]


# RFC 9110 section 5.6.2: token = 1*tchar
_TCHAR = frozenset("!#$%&'*+-.^_`|~0123456789"
                   "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")


def _token(instance: Any, attribute: attrs.Attribute[Any], value: Any) -> None:
    """spec: stream.attribution.static -- ``product`` and ``version`` are RFC 9110 tokens;
    ``url`` is printable ASCII that can stand in a comment (no ``(``, ``)`` or ``\\``)."""
    if not isinstance(value, str) or not value:
        raise InvalidArgument(f"AppIdentity.{attribute.name} must be a non-empty str")
    if any(c in value for c in "\r\n") or not value.isprintable() or not value.isascii():
        raise InvalidArgument(
            f"AppIdentity.{attribute.name} must be printable ASCII on one line: {value!r}"
        )
    if attribute.name == "url":
        if any(c in value for c in "()\\"):
            raise InvalidArgument(f"AppIdentity.url must not hold '(', ')' or '\\': {value!r}")
    elif not set(value) <= _TCHAR:
        raise InvalidArgument(f"AppIdentity.{attribute.name} must be an RFC 9110 token "
                              f"(letters, digits and !#$%&'*+-.^_`|~): {value!r}")


@attrs.frozen(kw_only=True)
class AppIdentity:
    """The application's public identity (seed 001 ``AppIdentity``).
    (spec: stream.attribution.static)
    """

    product: str = attrs.field(validator=_token)
    version: str = attrs.field(validator=_token)
    url: str = attrs.field(validator=_token)

    @property
    def user_agent(self) -> str:
        """``<product>/<version> (+<url>)``, the RFC 9110 product-token form."""
        return f"{self.product}/{self.version} (+{self.url})"


APP_IDENTITY = AppIdentity(
    product="loom-ref",
    version=__version__,
    # loom-ref has no public home yet: ``.invalid`` is reserved (RFC 2606) and cannot
    # resolve, so no request ever names someone else's site. Deployers pass their own identity.
    url="https://loom-ref.invalid/",
)
"""loom-ref's default identity; the version comes from the package."""


def attribution_headers(identity: AppIdentity | None = None) -> dict[str, str]:
    """The headers every provider request carries: the ``User-Agent`` only.

    spec: stream.attribution.user-agent — "maps it to the standard ``User-Agent`` header only".
    """
    if identity is None:
        identity = APP_IDENTITY
    if not isinstance(identity, AppIdentity):
        raise InvalidArgument(f"identity must be an AppIdentity, got {type(identity).__name__}")
    return {"User-Agent": identity.user_agent}
