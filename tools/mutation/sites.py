"""Where a file can be mutated, and the mutated source of each site.

A *mutant* is one small change to one file of ``loom_ref/``, applied to a scratch copy of
the package (never to the tree it was read from). The random operators are those of
mutation testing's literature, applied by replacing the source text of one AST node:

| op | change |
|---|---|
| ``cmp`` | a comparison flipped: ``==``/``!=``, ``<``/``<=``, ``>``/``>=``, ``is``, ``in`` |
| ``not`` | ``not x`` -> ``x`` |
| ``bool`` | ``and``/``or`` swapped |
| ``const+1``, ``const-1`` | an integer constant off by one (both ways; ``-1`` only above 0) |
| ``flip`` | ``True``/``False`` swapped |
| ``delete`` | a simple statement inside a function replaced by ``pass`` |
| ``none`` | ``return X`` -> ``return None`` |

What is never mutated (it is declaration, not behaviour, or cannot run): docstrings,
annotations, decorators, ``__all__``, ``if TYPE_CHECKING:`` blocks, the inside of f-strings
(their positions are unreliable before Python 3.12), ``assert`` statements (type
narrowing), and statements outside a function (a deleted module constant is a NameError at
import, killed by anything).

Positions: ``ast`` gives columns in UTF-8 bytes, so splicing works on the encoded source.
"""

from __future__ import annotations

import ast
import hashlib
from collections.abc import Iterator

import attrs

__all__ = ["Mutant", "apply", "mutants_of"]

_CMP_FLIP: dict[type[ast.cmpop], type[ast.cmpop]] = {
    ast.Eq: ast.NotEq, ast.NotEq: ast.Eq, ast.Lt: ast.LtE, ast.LtE: ast.Lt,
    ast.Gt: ast.GtE, ast.GtE: ast.Gt, ast.Is: ast.IsNot, ast.IsNot: ast.Is,
    ast.In: ast.NotIn, ast.NotIn: ast.In,
}
_CMP_TEXT: dict[type[ast.cmpop], str] = {
    ast.Eq: "==", ast.NotEq: "!=", ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=",
    ast.Is: "is", ast.IsNot: "is not", ast.In: "in", ast.NotIn: "not in",
}
_DELETABLE = (ast.Expr, ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Raise, ast.Return,
              ast.Continue, ast.Break, ast.Delete)


@attrs.frozen(kw_only=True)
class Mutant:
    """One change to one file: where it is, what it does, and how to apply it."""

    file: str                 # path relative to the project root, with "/"
    line: int                 # 1-based line of the node changed
    col: int                  # its UTF-8 byte column
    end_line: int
    end_col: int
    op: str                   # one of the operators above, or "semantic"
    change: str               # what is changed, readable: "< -> <=", "delete: x = 1"
    function: str             # the enclosing qualified name ("<module>" at top level)
    source_line: str          # the original line, stripped
    replacement: str          # the new text of [line:col, end_line:end_col)
    index: int = 0            # which operator of a chained comparison
    occurrence: int = 0       # how many mutants before it in the file share its key text
    rule: str = ""            # a semantic mutant: the rule it breaks

    @property
    def id(self) -> str:
        suffix = f"#{self.index}" if self.index else ""
        return f"{self.file}:{self.line}:{self.col}:{self.op}{suffix}"

    @property
    def key(self) -> str:
        """What survives line shifts: file, function, line text and change (the equivalent
        list matches on it)."""
        text = "\0".join((self.file, self.function, self.source_line, self.op, self.change,
                          str(self.index), str(self.occurrence)))
        return hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]


def apply(source: str, mutant: Mutant) -> str:
    """``source`` with ``mutant``'s span replaced by its replacement."""
    data = source.encode("utf-8")
    starts = [0]
    for i, byte in enumerate(data):
        if byte == 0x0A:
            starts.append(i + 1)
    begin = starts[mutant.line - 1] + mutant.col
    end = starts[mutant.end_line - 1] + mutant.end_col
    return (data[:begin] + mutant.replacement.encode("utf-8") + data[end:]).decode("utf-8")


def _is_docstring(node: ast.stmt) -> bool:
    """A docstring, or any other constant as a statement (``...``): nothing to delete."""
    return isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return ((isinstance(test, ast.Name) and test.id == "TYPE_CHECKING")
            or (isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"))


class _Finder(ast.NodeVisitor):
    """Walks a module, collecting (node, op, change, replacement) for every site."""

    def __init__(self, rel: str, source: str) -> None:
        self.rel = rel
        self.lines = source.splitlines()
        self.segments = source
        self.scope: list[str] = []
        self.in_function = 0
        self.found: list[Mutant] = []

    # -- scopes ------------------------------------------------------------------------
    def _body(self, body: list[ast.stmt]) -> None:
        for i, stmt in enumerate(body):
            if i == 0 and _is_docstring(stmt):
                continue
            self.visit(stmt)

    def visit_Module(self, node: ast.Module) -> None:
        self._body(node.body)

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        self.scope.append(node.name)
        for base in node.bases:
            self.visit(base)
        self._body(node.body)
        self.scope.pop()

    def _function(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        for default in [*node.args.defaults, *node.args.kw_defaults]:
            if default is not None:
                self.visit(default)
        self.scope.append(node.name)
        self.in_function += 1
        self._body(node.body)
        self.in_function -= 1
        self.scope.pop()

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        self._function(node)

    def visit_AsyncFunctionDef(self, node: ast.AsyncFunctionDef) -> None:
        self._function(node)

    def visit_Lambda(self, node: ast.Lambda) -> None:
        self.in_function += 1
        self.visit(node.body)
        self.in_function -= 1

    # -- what is skipped -----------------------------------------------------------------
    def visit_If(self, node: ast.If) -> None:
        if _is_type_checking(node):
            return
        self.generic_visit(node)

    def visit_Assert(self, node: ast.Assert) -> None:
        return

    def visit_JoinedStr(self, node: ast.JoinedStr) -> None:
        return

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        if node.value is not None:
            self._delete(node)
            self.visit(node.value)

    def visit_Assign(self, node: ast.Assign) -> None:
        if any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets):
            return
        self._delete(node)
        for target in node.targets:
            self.visit(target)
        self.visit(node.value)

    def visit_Import(self, node: ast.Import) -> None:
        return

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        return

    # -- statements ----------------------------------------------------------------------
    def generic_visit(self, node: ast.AST) -> None:
        if (isinstance(node, _DELETABLE) and not isinstance(node, ast.Assign | ast.AnnAssign)
                and not _is_docstring(node)):
            self._delete(node)
        super().generic_visit(node)

    def visit_Return(self, node: ast.Return) -> None:
        self._delete(node)
        value = node.value
        if value is not None and not (isinstance(value, ast.Constant) and value.value is None):
            self._add(value, "none", "return ... -> return None", "None")
        if value is not None:
            self.visit(value)

    def _delete(self, node: ast.stmt) -> None:
        if not self.in_function:
            return
        text = self.lines[node.lineno - 1].strip()
        self._add(node, "delete", f"delete: {text[:60]}", "pass")

    # -- expressions ---------------------------------------------------------------------
    def visit_Compare(self, node: ast.Compare) -> None:
        for i, op in enumerate(node.ops):
            new = _CMP_FLIP[type(op)]()
            ops = list(node.ops)
            ops[i] = new
            changed = ast.Compare(left=node.left, ops=ops, comparators=node.comparators)
            self._add(node, "cmp", f"{_CMP_TEXT[type(op)]} -> {_CMP_TEXT[type(new)]}",
                      f"({ast.unparse(changed)})", index=i)
        self.generic_visit(node)

    def visit_BoolOp(self, node: ast.BoolOp) -> None:
        new: ast.boolop = ast.Or() if isinstance(node.op, ast.And) else ast.And()
        change = "and -> or" if isinstance(node.op, ast.And) else "or -> and"
        changed = ast.BoolOp(op=new, values=node.values)
        self._add(node, "bool", change, f"({ast.unparse(changed)})")
        self.generic_visit(node)

    def visit_UnaryOp(self, node: ast.UnaryOp) -> None:
        if isinstance(node.op, ast.Not):
            self._add(node, "not", "not x -> x", f"({ast.unparse(node.operand)})")
        self.generic_visit(node)

    def visit_Constant(self, node: ast.Constant) -> None:
        value = node.value
        if isinstance(value, bool):
            self._add(node, "flip", f"{value} -> {not value}", repr(not value))
        elif isinstance(value, int):
            self._add(node, "const+1", f"{value} -> {value + 1}", repr(value + 1))
            if value > 0:
                self._add(node, "const-1", f"{value} -> {value - 1}", repr(value - 1))

    def _add(self, node: ast.expr | ast.stmt, op: str, change: str, replacement: str,
             index: int = 0) -> None:
        line = node.lineno
        assert node.end_lineno is not None and node.end_col_offset is not None
        self.found.append(Mutant(
            file=self.rel, line=line, col=node.col_offset, end_line=node.end_lineno,
            end_col=node.end_col_offset, op=op, change=change, index=index,
            function=".".join(self.scope) or "<module>",
            source_line=self.lines[line - 1].strip(), replacement=replacement))


def _skip_annotations(tree: ast.AST) -> None:
    """Drop annotations and decorators from the tree the finder walks (never mutated)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            node.returns = None
            node.decorator_list = []
            for arg in [*node.args.args, *node.args.posonlyargs, *node.args.kwonlyargs,
                        node.args.vararg, node.args.kwarg]:
                if arg is not None:
                    arg.annotation = None
        elif isinstance(node, ast.ClassDef):
            node.decorator_list = []
        elif isinstance(node, ast.AnnAssign):
            node.annotation = ast.Constant(value=None)


def mutants_of(rel: str, source: str) -> Iterator[Mutant]:
    """Every random mutant of the file ``rel`` whose text is ``source``, in source order;
    each one checked to parse and to change the program (its AST differs)."""
    tree = ast.parse(source)
    _skip_annotations(tree)
    finder = _Finder(rel, source)
    finder.visit(tree)
    # A mutant changes one top-level statement (a function or a class, as a rule): parsing
    # that statement alone, before and after, gives the same verdict as the whole file (it
    # parses; its tree differs), at a fraction of the cost.
    spans = [(min([n.lineno, *(d.lineno for d in getattr(n, "decorator_list", []))]),
              n.end_lineno or n.lineno) for n in tree.body]
    lines = source.splitlines(keepends=True)
    before: dict[int, str] = {}
    seen: set[str] = set()
    keys: dict[str, int] = {}
    for mutant in sorted(finder.found, key=lambda m: (m.line, m.col, m.op)):
        if mutant.id in seen:
            continue
        seen.add(mutant.id)
        span = next(((a, b) for a, b in spans if a <= mutant.line and mutant.end_line <= b),
                    None)
        try:
            if span is None:  # not inside one top-level statement: the whole file
                changed = ast.dump(ast.parse(apply(source, mutant))) != \
                    ast.dump(ast.parse(source))
            else:
                a, b = span
                if a not in before:
                    before[a] = ast.dump(ast.parse("".join(lines[a - 1:b])))
                grown = mutant.replacement.count("\n") - (mutant.end_line - mutant.line)
                after = apply(source, mutant).splitlines(keepends=True)[a - 1:b + grown]
                changed = ast.dump(ast.parse("".join(after))) != before[a]
        except SyntaxError:
            continue
        if changed:
            n = keys.get(mutant.key, 0)
            keys[mutant.key] = n + 1
            yield attrs.evolve(mutant, occurrence=n) if n else mutant
