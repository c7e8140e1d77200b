"""Case skeletons: drafts in the case shape that a person finishes.

A draft carries `skip: draft` (so a run leaves it unscored and the lint names it a draft), the state
and turns it was drafted with, and whatever `expected` keys a person has confirmed (none, for a
draft from dimensions). Drafts are written to a new file only: never over an existing one.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml

from commerce_evals.cases.model import CaseFileError, _read_entries, case_files, parse_case

DRAFT = "draft"
_NUMBER = re.compile(r"^(?P<flow>[a-z][a-z0-9_]*)-(?P<n>\d{3})-")


def is_draft(skip: str | None) -> bool:
    return (skip or "").strip().casefold() == DRAFT


def slug(words: list[str], limit: int = 48) -> str:
    text = "-".join(re.sub(r"[^a-z0-9]+", "-", w.casefold()).strip("-") for w in words)
    text = re.sub(r"-+", "-", text).strip("-")[:limit].rstrip("-")
    return text or "draft"


def ids_in(paths: list[Path]) -> set[str]:
    """Every id written in the case files under `paths` (valid or not: an id is never reused)."""
    ids: set[str] = set()
    for given in paths:
        if not given.exists():
            continue
        for path in case_files(given):
            try:
                entries = _read_entries(path)
            except CaseFileError:
                continue
            ids.update(
                e["id"] for e in entries if isinstance(e, dict) and isinstance(e.get("id"), str)
            )
    return ids


def next_number(flow: str, taken: set[str]) -> int:
    """One past the highest <nnn> the flow's ids use (ids are never reused)."""
    numbers = [int(m["n"]) for i in taken if (m := _NUMBER.match(i)) and m["flow"] == flow]
    return max(numbers, default=0) + 1


def case_id(flow: str, number: int, words: list[str]) -> str:
    return f"{flow}-{number:03d}-{slug(words)}"


def write_drafts(path: Path, drafts: list[dict[str, Any]], header: str) -> None:
    """Validate every draft as a case, then write them to a new file (refusing an existing one)."""
    problems: list[str] = []
    for index, draft in enumerate(drafts):
        try:
            parse_case(draft, path, index)
        except CaseFileError as err:
            problems.extend(err.problems)
    if problems:
        raise CaseFileError(problems)
    if path.exists():
        raise FileExistsError(
            f"{path} exists: drafts are never written over a file; name a new one"
        )
    path.parent.mkdir(parents=True, exist_ok=True)
    body = yaml.safe_dump(
        {"cases": drafts}, sort_keys=False, allow_unicode=True, width=100, default_flow_style=None
    )
    comment = "".join(f"# {line}\n" if line else "#\n" for line in header.splitlines())
    with path.open("x", encoding="utf-8") as out:
        out.write(comment + body)
