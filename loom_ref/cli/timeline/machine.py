"""The execution's state machine, drawn from the table the code enforces.

Spec: ``spec/journal.md`` 1.3 (``journal.transitions``): which event may follow in which
status is :data:`loom_ref.journal.fold.TRANSITIONS` and nothing else. This module reads that
table (it never changes it) and draws it twice: as Mermaid (``stateDiagram-v2``), the copy in
``spec/journal.md`` that ``tests/cli/test_machine.py`` regenerates and compares, and as SVG,
in the HTML timeline, where the status after a clicked event lights up. As in h11, prose and
code cannot drift: the pictures are the table.

- the initial status is the one :func:`~loom_ref.journal.fold.fold` gives no events;
- a status whose row is empty is final;
- the kinds that lead from one status to the same next status share one arrow.

``python -m loom_ref.cli.timeline.machine [--write spec/journal.md]`` prints the Mermaid
block, or rewrites the spec's copy between its two marker comments.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence

import attrs

from loom_ref.cli.timeline.svgkit import attrs_of, esc, rect, text, text_width
from loom_ref.journal.events import EventKind
from loom_ref.journal.fold import TRANSITIONS, Status, fold

__all__ = ["BEGIN", "END", "Edge", "edges", "final_states", "initial_state", "main",
           "mermaid_block", "mermaid_state_diagram", "replace_block", "state_svg"]

Table = Mapping[Status, Mapping[EventKind, Status]]

#: The marker comments around the generated copy in ``spec/journal.md``.
BEGIN = ("<!-- BEGIN generated: the state machine of loom_ref.journal.fold.TRANSITIONS, by "
         "python -m loom_ref.cli.timeline.machine --write spec/journal.md; do not edit -->")
END = "<!-- END generated state machine -->"


@attrs.frozen(kw_only=True)
class Edge:
    """One arrow: the event kinds that lead from ``source`` to ``target``."""

    source: Status
    target: Status
    kinds: tuple[EventKind, ...]


def initial_state() -> Status:
    """The status of an execution with no events (where :func:`fold` starts)."""
    return fold([]).status


def final_states(table: Table = TRANSITIONS) -> list[Status]:
    """The statuses no event may leave."""
    return [status for status, row in table.items() if not row]


def edges(table: Table = TRANSITIONS) -> list[Edge]:
    """The table's arrows, in the table's order (kinds grouped by next status)."""
    out: list[Edge] = []
    for source, row in table.items():
        targets: dict[Status, list[EventKind]] = {}
        for kind, target in row.items():
            targets.setdefault(target, []).append(kind)
        out.extend(Edge(source=source, target=t, kinds=tuple(k)) for t, k in targets.items())
    return out


def _mid(status: Status) -> str:
    return status.value.replace("-", "_")


def mermaid_state_diagram(table: Table = TRANSITIONS) -> str:
    """The table as a Mermaid ``stateDiagram-v2`` (one line per arrow)."""
    lines = ["stateDiagram-v2", "    direction LR"]
    lines += [f'    state "{s.value}" as {_mid(s)}' for s in table if _mid(s) != s.value]
    lines.append(f"    [*] --> {_mid(initial_state())}")
    for edge in edges(table):
        label = "<br/>".join(k.value for k in edge.kinds)
        lines.append(f"    {_mid(edge.source)} --> {_mid(edge.target)}: {label}")
    lines += [f"    {_mid(s)} --> [*]" for s in final_states(table)]
    return "\n".join(lines)


def mermaid_block(table: Table = TRANSITIONS) -> str:
    """The fenced block, between its marker comments, as ``spec/journal.md`` holds it."""
    return f"{BEGIN}\n```mermaid\n{mermaid_state_diagram(table)}\n```\n{END}"


def replace_block(page: str, table: Table = TRANSITIONS) -> str:
    """``page`` with its generated block replaced by the current one."""
    start, stop = page.find(BEGIN), page.find(END)
    if start < 0 or stop < start:
        raise ValueError("the page holds no generated state-machine block")
    return page[:start] + mermaid_block(table) + page[stop + len(END):]


# -- SVG --------------------------------------------------------------------------------------
NODE_W, NODE_H = 168, 40  # room for "completed (final)" inside its double border
GAP_X, GAP_Y = 220, 58
BOW = 9  # how far a return arrow bows away from the arrow it returns along
LINE = 14  # the height of one label line
KIND_SIZE = 11


def _layers(table: Table) -> list[list[Status]]:
    """Statuses by their distance from the initial one; in a layer, table order, except that
    the target of an arrow within the layer moves next to its source."""
    depth = {initial_state(): 0}
    frontier = [initial_state()]
    while frontier:
        nxt = []
        for status in frontier:
            for target in table[status].values():
                if target not in depth:
                    depth[target] = depth[status] + 1
                    nxt.append(target)
        frontier = nxt
    for status in table:  # unreachable statuses go last
        depth.setdefault(status, max(depth.values()) + 1)
    layers: list[list[Status]] = [[] for _ in range(max(depth.values()) + 1)]
    for status in table:
        layers[depth[status]].append(status)
    for edge in edges(table):
        layer = layers[depth[edge.source]]
        if edge.source != edge.target and depth[edge.target] == depth[edge.source]:
            layer.remove(edge.target)
            layer.insert(layer.index(edge.source) + 1, edge.target)
    return layers


def _label(x: float, y: float, kinds: Sequence[EventKind], anchor: str, up: bool) -> str:
    """The kinds of an arrow, one per line, ending just above (``up``) or starting just
    below ``y``."""
    top = y - LINE * (len(kinds) - 1) - 4 if up else y + LINE - 2
    content = "\n".join(k.value for k in kinds)
    return text(x, top, content, class_="sm-kind", text_anchor=anchor, font_size=KIND_SIZE)


def _along(guide: str, kinds: Sequence[EventKind], *, above: bool) -> str:
    """The kinds of an arrow, one per line, along the path ``guide``, ending near its right
    end, above or below it."""
    first = -5 - LINE * (len(kinds) - 1) if above else LINE - 1
    return "".join(
        f'<text class="sm-kind" font-size="{KIND_SIZE}" dy="{first + i * LINE:g}">'
        f'<textPath href="#{guide}" startOffset="94%" text-anchor="end">{esc(kind.value)}'
        "</textPath></text>" for i, kind in enumerate(kinds))


def state_svg(table: Table = TRANSITIONS, *, current: Status | None = None) -> str:
    """The table as an SVG state diagram; ``current`` is drawn highlighted."""
    layers = _layers(table)
    loop_lines = max((len(e.kinds) for e in edges(table) if e.source == e.target), default=0)
    top = 16 + LINE * loop_lines + 34
    tallest = max(len(layer) * NODE_H + (len(layer) - 1) * GAP_Y for layer in layers)
    pos: dict[Status, tuple[float, float]] = {}
    for i, layer in enumerate(layers):
        height = len(layer) * NODE_H + (len(layer) - 1) * GAP_Y
        for j, status in enumerate(layer):
            pos[status] = (40 + i * (NODE_W + GAP_X),
                           top + (tallest - height) / 2 + j * (NODE_H + GAP_Y))
    last = len(layers) - 1
    depth = {s: i for i, layer in enumerate(layers) for s in layer}
    pairs = {(e.source, e.target) for e in edges(table)}
    parts: list[str] = []
    guides: list[str] = []  # the paths the labels of straight arrows run along
    for edge in edges(table):
        (sx, sy), (_, ty) = pos[edge.source], pos[edge.target]
        at = attrs_of(class_="sm-edge", data_from=edge.source.value,
                      data_to=edge.target.value,
                      data_kinds=" ".join(k.value for k in edge.kinds))
        if edge.source == edge.target:
            if depth[edge.source] == last:  # a loop on the right, its label beside it
                x, y = sx + NODE_W, sy
                d = f"M{x:g},{y + 10:g} C{x + 46:g},{y - 8:g} {x + 46:g},{y + NODE_H + 8:g} " \
                    f"{x:g},{y + NODE_H - 10:g}"
                label = _label(x + 44, y + NODE_H / 2 + 4 - LINE * (len(edge.kinds) - 1) / 2,
                               edge.kinds, "start", up=False)
            else:  # a loop on top, its label above it
                x, y = sx + NODE_W / 2, sy
                d = f"M{x - 26:g},{y:g} C{x - 34:g},{y - 44:g} {x + 34:g},{y - 44:g} " \
                    f"{x + 26:g},{y:g}"
                label = _label(x, y - 38, edge.kinds, "middle", up=True)
        elif depth[edge.source] == depth[edge.target]:  # within a layer: down the right side
            x = sx + NODE_W / 2
            d = f"M{x:g},{sy + NODE_H:g} L{x:g},{ty:g}"
            if abs(layers[depth[edge.source]].index(edge.target)
                   - layers[depth[edge.source]].index(edge.source)) > 1:
                x = sx + NODE_W
                d = f"M{x:g},{sy + NODE_H / 2:g} C{x + 70:g},{sy:g} {x + 70:g},{ty + NODE_H:g} " \
                    f"{x:g},{ty + NODE_H / 2:g}"
            label = _label(x + 8, (sy + NODE_H + ty) / 2 - 2, edge.kinds, "start", up=False)
        else:  # between layers: a straight arrow; an arrow and its return bow apart
            forward = depth[edge.target] > depth[edge.source]
            paired = (edge.target, edge.source) in pairs
            near, far = (pos[edge.source], pos[edge.target]) if forward else (
                pos[edge.target], pos[edge.source])  # near: the left end of the arrow
            spread = max(-14.0, min(14.0, (far[1] - near[1]) * 0.12))
            y_near = near[1] + NODE_H / 2 + spread + (0 if not paired else -5 if forward else 5)
            y_far = far[1] + NODE_H / 2 + (0 if not paired else -8 if forward else 8)
            x_near, x_far = near[0] + NODE_W, far[0]
            # of a pair, the return arrow is dashed and bows away below the forward one, so the
            # two read as a way there and a way back
            bow = BOW if paired and not forward else 0
            length = max(((x_far - x_near) ** 2 + (y_far - y_near) ** 2) ** 0.5, 1.0)
            cx = (x_near + x_far) / 2 + bow * (y_far - y_near) / length * -1
            cy = (y_near + y_far) / 2 + bow * (x_far - x_near) / length
            there = f"M{x_near:g},{y_near:g} Q{cx:g},{cy:g} {x_far:g},{y_far:g}"
            d = there if forward else f"M{x_far:g},{y_far:g} Q{cx:g},{cy:g} {x_near:g},{y_near:g}"
            if paired and not forward:
                at = at.replace('class="sm-edge"', 'class="sm-edge sm-back"')
            # the kinds run along the arrow, near its right end: a forward arrow's above it,
            # its return arrow's below
            guide = f"sm-guide-{len(guides)}"
            guides.append(f'<path id="{guide}" d="{there}"/>')
            label = _along(guide, edge.kinds, above=forward or not paired)
        parts.append(f'<g {at}><path d="{d}" class="sm-arrow" marker-end="url(#sm-head)"/>'
                     f"{label}</g>")
    initial = initial_state()
    ix, iy = pos[initial]
    parts.append(f'<circle cx="{ix - 26:g}" cy="{iy + NODE_H / 2:g}" r="7" class="sm-start"/>'
                 f'<path d="M{ix - 19:g},{iy + NODE_H / 2:g} L{ix:g},{iy + NODE_H / 2:g}" '
                 'class="sm-arrow" marker-end="url(#sm-head)"/>')
    finals = set(final_states(table))
    for status, (x, y) in pos.items():
        cls = "sm-state" + (" sm-current" if status is current else "")
        name = status.value + (" (final)" if status in finals else "")
        parts.append(
            f'<g {attrs_of(class_=cls, data_status=status.value)}>'
            + rect(x, y, NODE_W, NODE_H, rx=10, class_=f"sm-box st-{status.value}")
            + (rect(x + 4, y + 4, NODE_W - 8, NODE_H - 8, rx=7, class_="sm-final")
               if status in finals else "")
            + text(x + NODE_W / 2, y + NODE_H / 2 + 5, name, text_anchor="middle",
                   class_="sm-name")
            + "</g>")
    width = 40 + len(layers) * NODE_W + (len(layers) - 1) * GAP_X + 60 + max(
        (text_width(k.value, KIND_SIZE) for e in edges(table) if e.source == e.target
         and depth[e.source] == last for k in e.kinds), default=0)
    height = top + tallest + 30
    return (f'<svg xmlns="http://www.w3.org/2000/svg" class="state-machine" role="img" '
            f'aria-label="{esc("state machine of an execution")}" width="{width:g}" '
            f'height="{height:g}" viewBox="0 0 {width:g} {height:g}">'
            '<defs><marker id="sm-head" viewBox="0 0 10 10" refX="9" refY="5" '
            'markerWidth="7" markerHeight="7" orient="auto-start-reverse">'
            '<path d="M0,0 L10,5 L0,10 z" class="sm-headshape"/></marker>'
            + "".join(guides) + "</defs>"
            + "".join(parts) + "</svg>")


def main(argv: Sequence[str] | None = None) -> int:
    """Print the Mermaid block, or with ``--write PAGE`` rewrite PAGE's copy of it."""
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] == ["--write"] and len(args) == 2:
        with open(args[1], encoding="utf-8") as f:
            page = f.read()
        with open(args[1], "w", encoding="utf-8") as f:
            f.write(replace_block(page))
        print(f"wrote the state machine into {args[1]}")
        return 0
    if args:
        sys.stderr.write("usage: python -m loom_ref.cli.timeline.machine [--write PAGE]\n")
        return 2
    print(mermaid_block())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
