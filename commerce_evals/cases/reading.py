"""Reading the files people write (cases, fixtures, instructions, labels, traffic) with limits.

Strict UTF-8 (a bad byte is named by its offset, line and column), a size cap, a nesting-depth
cap, and YAML aliases expanded only within a small budget: a few hundred bytes of nested aliases
(an "alias bomb") would otherwise expand to gigabytes once validated or copied. Every problem is
an `InputError` naming the file and the place.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml

from commerce_evals.cases.errors import InputError

MAX_DEPTH = 64
# YAML aliases may add at most this many nodes beyond the ones written out (an anchor reused a
# few times costs tens; a bomb costs billions).
ALIAS_BUDGET = 10_000
MB = 1024 * 1024
MAX_FIXTURE_BYTES = 64 * MB


class ReadError(InputError):
    """A file that cannot be read as the text or data it should hold."""


def _position(data: bytes, offset: int) -> str:
    line = data.count(b"\n", 0, offset) + 1
    column = offset - (data.rfind(b"\n", 0, offset) + 1) + 1
    return f"line {line}, column {column}"


def read_text(path: Path, max_bytes: int = 8 * MB, what: str = "file") -> str:
    """The file's text; missing, a folder, too big, or not UTF-8 is a ReadError naming it."""
    if not path.exists():
        raise ReadError(f"{path}: no such {what}")
    if path.is_dir():
        raise ReadError(f"{path}: is a folder, not a {what}")
    try:
        size = path.stat().st_size
        if size > max_bytes:
            raise ReadError(
                f"{path}: {size:,} bytes, over the {max_bytes:,}-byte limit for a {what}"
            )
        data = path.read_bytes()
    except OSError as err:
        raise ReadError(f"{path}: cannot read the {what}: {err.strerror or err}") from err
    return decode(data, str(path))


def decode(data: bytes, where: str) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise ReadError(
            f"{where}: not UTF-8: byte 0x{data[err.start]:02x} at offset {err.start} "
            f"({_position(data, err.start)}); save the file as UTF-8"
        ) from err


def _too_deep(where: str, line: int | None = None) -> ReadError:
    at = f" (line {line})" if line else ""
    return ReadError(f"{where}: nested deeper than {MAX_DEPTH} levels{at}; flatten the data")


class _LimitedLoader(yaml.SafeLoader):
    """SafeLoader that refuses nesting deeper than MAX_DEPTH while composing."""

    def __init__(self, stream: str, where: str) -> None:
        super().__init__(stream)
        self._where = where
        self._depth = 0

    def compose_node(self, parent: Any, index: Any) -> Any:
        self._depth += 1
        try:
            if self._depth > MAX_DEPTH:
                raise _too_deep(self._where, self.peek_event().start_mark.line + 1)
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1


def _expanded_size(root: yaml.Node, where: str) -> int:
    """Nodes the document holds once every alias is expanded (aliases reuse the anchored node)."""
    sizes: dict[int, int] = {}
    open_: set[int] = set()

    def size(node: yaml.Node) -> int:
        key = id(node)
        if key in sizes:
            return sizes[key]
        if key in open_:
            raise ReadError(
                f"{where}: line {node.start_mark.line + 1}: an alias refers to its own anchor"
            )
        open_.add(key)
        total = 1
        if isinstance(node, yaml.SequenceNode):
            total += sum(size(item) for item in node.value)
        elif isinstance(node, yaml.MappingNode):
            total += sum(size(k) + size(v) for k, v in node.value)
        open_.discard(key)
        sizes[key] = total
        return total

    expanded = size(root)
    written = len(sizes)
    if expanded - written > ALIAS_BUDGET:
        raise ReadError(
            f"{where}: YAML aliases expand to {expanded:,} values from {written:,} written "
            f"(more than {ALIAS_BUDGET:,} added); write the repeated values out or use fewer aliases"
        )
    return expanded


def _yaml_problem(err: yaml.YAMLError) -> str:
    """PyYAML's error in one line: what it was doing, what it found, and where."""
    if isinstance(err, yaml.MarkedYAMLError) and err.problem:
        mark = err.problem_mark
        at = f" (line {mark.line + 1}, column {mark.column + 1})" if mark else ""
        context = f"{err.context}: " if err.context else ""
        return f"{context}{err.problem}{at}"
    return " ".join(str(err).split())


def compose_yaml(text: str, where: str) -> yaml.Node | None:
    """The document's node tree, within the depth and alias limits (None for an empty file)."""
    loader: _LimitedLoader | None = None
    try:
        loader = _LimitedLoader(text, where)  # the reader checks the characters already
        root = loader.get_single_node()
        if root is not None:
            _expanded_size(root, where)
        return root
    except yaml.YAMLError as err:
        raise ReadError(f"{where}: not valid YAML: {_yaml_problem(err)}") from err
    except RecursionError as err:
        raise _too_deep(where) from err
    finally:
        if loader is not None:
            loader.dispose()


def parse_yaml(text: str, where: str) -> Any:
    root = compose_yaml(text, where)
    if root is None:
        return None
    loader = yaml.SafeLoader("")
    try:
        return loader.construct_document(root)
    except yaml.YAMLError as err:
        raise ReadError(f"{where}: not valid YAML: {_yaml_problem(err)}") from err
    finally:
        loader.dispose()


def _depth(value: Any) -> int:
    """The nesting depth of parsed JSON, without recursion."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        node, depth = stack.pop()
        deepest = max(deepest, depth)
        if depth > MAX_DEPTH:
            return depth
        if isinstance(node, dict):
            stack.extend((v, depth + 1) for v in node.values())
        elif isinstance(node, list):
            stack.extend((v, depth + 1) for v in node)
    return deepest


def parse_json(text: str, where: str) -> Any:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as err:
        # one line of JSON lines is already named by its file:line
        at = (
            f"line {err.lineno}, column {err.colno}"
            if "\n" in text.strip()
            else f"column {err.colno}"
        )
        raise ReadError(f"{where}: not valid JSON: {err.msg} ({at})") from err
    except RecursionError as err:
        raise _too_deep(where) from err
    if _depth(data) > MAX_DEPTH:
        raise _too_deep(where)
    return data


def parse_data(text: str, path: Path) -> Any:
    """JSON for .json files, YAML for anything else (YAML reads JSON too)."""
    return parse_json(text, str(path)) if path.suffix == ".json" else parse_yaml(text, str(path))


def read_data(path: Path, max_bytes: int = 8 * MB, what: str = "file") -> Any:
    return parse_data(read_text(path, max_bytes, what), path)
