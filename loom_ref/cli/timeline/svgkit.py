"""Writing SVG by hand: escaping and the few elements the pictures use.

Every string that reaches the page goes through :func:`esc`; attribute values are written by
:func:`attrs_of` only. No element is built from unescaped payload text.
"""

from __future__ import annotations

from html import escape

__all__ = ["attrs_of", "esc", "line", "rect", "text", "text_width"]


def esc(value: object) -> str:
    """``value`` as text safe in an HTML/SVG element or a quoted attribute."""
    return escape(str(value), quote=True)


_CAMEL = frozenset({"textLength", "lengthAdjust", "viewBox"})  # SVG names kept as written


def attrs_of(**values: object) -> str:
    """``key="value"`` pairs; a trailing underscore is dropped (``class_``) and other
    underscores become dashes (``font_size`` -> ``font-size``, ``data_seq`` -> ``data-seq``);
    None values are left out."""
    parts = []
    for key, value in values.items():
        if value is None:
            continue
        name = key if key in _CAMEL else key.rstrip("_").replace("_", "-")
        parts.append(f'{name}="{esc(value)}"')
    return " ".join(parts)


def text_width(text: str, size: float) -> float:
    """A rough width of ``text`` at font size ``size`` (sans-serif): for layout only."""
    return len(text) * size * 0.6


def text(x: float, y: float, content: str, **values: object) -> str:
    """A ``<text>``; a content with newlines becomes one ``<tspan>`` per line."""
    lines = content.split("\n")
    if len(lines) == 1:
        return f"<text {attrs_of(x=f'{x:g}', y=f'{y:g}', **values)}>{esc(content)}</text>"
    size = float(str(values.get("font_size", 12)))
    spans = "".join(
        f'<tspan x="{x:g}" dy="{0 if i == 0 else size * 1.25:g}">{esc(part)}</tspan>'
        for i, part in enumerate(lines))
    return f"<text {attrs_of(x=f'{x:g}', y=f'{y:g}', **values)}>{spans}</text>"


def rect(x: float, y: float, width: float, height: float, **values: object) -> str:
    """A ``<rect>``."""
    at = attrs_of(x=f"{x:g}", y=f"{y:g}", width=f"{width:g}", height=f"{height:g}", **values)
    return f"<rect {at}/>"


def line(x1: float, y1: float, x2: float, y2: float, **values: object) -> str:
    """A ``<line>``."""
    at = attrs_of(x1=f"{x1:g}", y1=f"{y1:g}", x2=f"{x2:g}", y2=f"{y2:g}", **values)
    return f"<line {at}/>"
