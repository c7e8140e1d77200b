"""Reading the files people write (cases, fixtures, sets, prices, labels, dimensions, traffic).

Strict UTF-8 (a bad byte is named by its offset, line and column; a leading byte-order mark is
accepted in every format), a size cap, a nesting-depth cap, and YAML aliases expanded only within
a small budget: a few hundred bytes of nested aliases (an "alias bomb") would otherwise expand to
gigabytes once validated or copied. A key written twice in one mapping (YAML or JSON) is an error,
not "the last copy wins", and so is a number that is not finite (YAML `.nan`, `.inf`, JSON `NaN`,
`Infinity`, or a literal too large for a float): no file a person writes means either. Every
problem is an `InputError` naming the file and the place.
"""

from __future__ import annotations

import json
import math
import re
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


BOM = "\ufeff"


def decode(data: bytes, where: str) -> str:
    """UTF-8 text without a leading byte-order mark (editors on Windows write one)."""
    try:
        return data.decode("utf-8").removeprefix(BOM)
    except UnicodeDecodeError as err:
        raise ReadError(
            f"{where}: not UTF-8: byte 0x{data[err.start]:02x} at offset {err.start} "
            f"({_position(data, err.start)}); save the file as UTF-8"
        ) from err


def _too_deep(where: str, line: int | None = None) -> ReadError:
    at = f" (line {line})" if line else ""
    return ReadError(f"{where}: nested deeper than {MAX_DEPTH} levels{at}; flatten the data")


_OPENS = (yaml.SequenceStartEvent, yaml.MappingStartEvent)
_CLOSES = (yaml.SequenceEndEvent, yaml.MappingEndEvent)


def _check_depth(text: str, where: str) -> None:
    """Refuse nesting deeper than MAX_DEPTH before the tree is built: libyaml's parser reads the
    events without recursion, but the composer recurses per level and would crash on a deep
    enough document instead of raising."""
    depth = 0
    for event in yaml.parse(text, Loader=yaml.CSafeLoader):
        if isinstance(event, _CLOSES):
            depth -= 1
            continue
        if isinstance(event, yaml.NodeEvent) and depth + 1 > MAX_DEPTH:
            raise _too_deep(where, event.start_mark.line + 1 if event.start_mark else None)
        if isinstance(event, _OPENS):
            depth += 1


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
    """The document's node tree, within the depth and alias limits (None for an empty file).
    Composed by libyaml (a case file is read by every task that runs its flow)."""
    loader: yaml.CSafeLoader | None = None
    try:
        _check_depth(text, where)
        loader = yaml.CSafeLoader(text)  # the reader checks the characters already
        root = loader.get_single_node()
        if root is not None:
            _expanded_size(root, where)
        return root
    except yaml.YAMLError as err:
        raise ReadError(
            f"{where}: not valid YAML: {_python_problem(text) or _yaml_problem(err)}"
        ) from err
    except RecursionError as err:
        raise _too_deep(where) from err
    finally:
        if loader is not None:
            loader.dispose()


def _python_problem(text: str) -> str | None:
    """PyYAML's own parser's account of a document libyaml refused: it says what it expected
    and what it found ("expected the node content, but found '<stream end>'") where libyaml
    says less. Run only on a refused document (within the depth limit already)."""
    loader: yaml.SafeLoader | None = None
    try:
        loader = yaml.SafeLoader(text)  # its reader refuses some characters libyaml takes
        loader.get_single_node()
    except yaml.YAMLError as err:
        return _yaml_problem(err)
    finally:
        if loader is not None:
            loader.dispose()
    return None


FLOAT_TAG = "tag:yaml.org,2002:float"
MERGE_TAG = "tag:yaml.org,2002:merge"


def _not_finite(where: str, at: str, key: Any, written: str) -> ReadError:
    named = f"{key}: " if key is not None else ""
    return ReadError(
        f"{where}: {at}: {named}{written} is not a finite number; write a finite number"
    )


def _written_twice(where: str, at: str, key: Any, first: str) -> ReadError:
    return ReadError(f"{where}: {at}: key {key!r} written twice ({first}); keep one of them")


class _DataLoader(yaml.SafeLoader):
    """SafeLoader's constructor that refuses a key written twice and a number that is not finite."""

    def __init__(self, where: str) -> None:
        super().__init__("")
        self._where = where

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: dict[Any, int] = {}
        for key_node, value_node in node.value:
            if key_node.tag == MERGE_TAG:  # `<<: *base` then a key of its own is an override
                continue
            key = self.construct_object(key_node, deep=True)
            line = key_node.start_mark.line + 1
            try:
                if key in seen:
                    first = f"first on line {seen[key]}"
                    raise _written_twice(self._where, f"line {line}", key, first)
                seen[key] = line
            except TypeError:  # an unhashable key: PyYAML refuses it itself
                pass
            if isinstance(value_node, yaml.ScalarNode) and value_node.tag == FLOAT_TAG:
                self._finite(value_node, key)
        return super().construct_mapping(node, deep)

    def _finite(self, node: yaml.ScalarNode, key: Any = None) -> float:
        value = float(super().construct_yaml_float(node))
        if not math.isfinite(value):
            at = f"line {node.start_mark.line + 1}"
            raise _not_finite(self._where, at, key, node.value)
        return value

    def construct_yaml_float(self, node: yaml.ScalarNode) -> float:
        return self._finite(node)


_DataLoader.add_constructor(FLOAT_TAG, _DataLoader.construct_yaml_float)


def construct_yaml(node: yaml.Node, where: str) -> Any:
    """The value of a composed node (see compose_yaml), with the reader's checks."""
    loader = _DataLoader(where)
    try:
        return loader.construct_document(node)
    except yaml.YAMLError as err:
        raise ReadError(f"{where}: not valid YAML: {_yaml_problem(err)}") from err
    finally:
        loader.dispose()


def parse_yaml(text: str, where: str) -> Any:
    root = compose_yaml(text, where)
    return None if root is None else construct_yaml(root, where)


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


_STRING = r'"(?:[^"\\]|\\.)*"'
_JSON_TOKEN = re.compile(_STRING + r"|[{}\[\]:]")
_JSON_NUMBER = re.compile(_STRING + r"|(-?(?:Infinity|NaN)|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)")
_KEY_BEFORE = re.compile(r'"((?:[^"\\]|\\.)*)"\s*:\s*$')


class _DuplicateKey(Exception):
    """Raised inside json.loads; located by _json_duplicate, which scans the text again."""


class _NotFinite(Exception):
    """Raised inside json.loads; located by _json_not_finite."""


def _unique_pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    mapping = dict(pairs)
    if len(mapping) != len(pairs):
        raise _DuplicateKey
    return mapping


def _refuse_constant(_: str) -> float:
    raise _NotFinite


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):  # 1e999
        raise _NotFinite
    return value


def _json_at(text: str, offset: int) -> str:
    """Where an offset is: line and column, or the column alone in one line of JSON lines."""
    line = text.count("\n", 0, offset) + 1
    column = offset - (text.rfind("\n", 0, offset) + 1) + 1
    return f"line {line}, column {column}" if "\n" in text.strip() else f"column {column}"


def _json_duplicate(text: str, where: str) -> ReadError:
    """The first key written twice in one object, found by walking strings and brackets."""
    objects: list[dict[str, int] | None] = []  # None: an array
    previous: re.Match[str] | None = None
    for token in _JSON_TOKEN.finditer(text):
        mark = token.group()
        if mark in "{[":
            objects.append({} if mark == "{" else None)
        elif mark in "}]":
            objects.pop()
        elif mark == ":" and previous is not None and objects and objects[-1] is not None:
            key = json.loads(previous.group())
            if key in objects[-1]:
                first = f"first at {_json_at(text, objects[-1][key])}"
                return _written_twice(where, _json_at(text, previous.start()), key, first)
            objects[-1][key] = previous.start()
        previous = token if mark.startswith('"') else None
    return ReadError(f"{where}: a key is written twice in one object; keep one of them")


def _json_not_finite(text: str, where: str) -> ReadError:
    for token in _JSON_NUMBER.finditer(text):
        number = token.group(1)
        if number is None or math.isfinite(float(number)):
            continue
        key = _KEY_BEFORE.search(text, 0, token.start())
        named = json.loads(f'"{key.group(1)}"') if key else None
        return _not_finite(where, _json_at(text, token.start()), named, number)
    return ReadError(f"{where}: a number is not finite; write a finite number")


def parse_json(text: str, where: str) -> Any:
    try:
        data = json.loads(
            text,
            object_pairs_hook=_unique_pairs,
            parse_constant=_refuse_constant,
            parse_float=_finite_float,
        )
    except json.JSONDecodeError as err:
        # one line of JSON lines is already named by its file:line
        at = (
            f"line {err.lineno}, column {err.colno}"
            if "\n" in text.strip()
            else f"column {err.colno}"
        )
        raise ReadError(f"{where}: not valid JSON: {err.msg} ({at})") from err
    except _DuplicateKey:
        raise _json_duplicate(text, where) from None
    except _NotFinite:
        raise _json_not_finite(text, where) from None
    except RecursionError as err:
        raise _too_deep(where) from err
    if _depth(data) > MAX_DEPTH:
        raise _too_deep(where)
    return data


def parse_data(text: str, path: Path) -> Any:
    """JSON for .json files, YAML for anything else (YAML reads JSON too)."""
    json_file = path.suffix.lower() == ".json"
    return parse_json(text, str(path)) if json_file else parse_yaml(text, str(path))


def read_data(path: Path, max_bytes: int = 8 * MB, what: str = "file") -> Any:
    return parse_data(read_text(path, max_bytes, what), path)
