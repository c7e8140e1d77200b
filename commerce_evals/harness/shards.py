"""Deterministic shards of a flow, so several machines run one sweep: `-T shard=i/n`.

A case belongs to shard `hash(case id) mod n + 1`, a function of its id alone: every machine,
every run and every Python computes the same split (SHA-256, not Python's salted `hash`), each
case is in exactly one of the n shards, and adding or removing a case moves no other case.
Shards are numbered from 1: a three-machine sweep runs `shard=1/3`, `shard=2/3` and `shard=3/3`.

A chained case (`state: {after: X}`) replays X's reference run at its own start (see chain.py),
so it runs alone in whichever shard it falls; X need not be in the same shard.

The task's metadata records the shard and how many samples each shard of the whole task holds,
so the run-pattern commands can tell a complete sweep from one with a shard missing (and know
that an empty shard has no log to wait for).
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

_FORM = re.compile(r"^\s*(\d+)\s*/\s*(\d+)\s*$")


def shard_number(case_id: str, count: int) -> int:
    """The shard (1..count) that holds a case."""
    digest = hashlib.sha256(case_id.encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big") % count + 1


@dataclass(frozen=True)
class Shard:
    index: int  # 1..count
    count: int

    @classmethod
    def parse(cls, text: object) -> Shard:
        """`i/n` with 1 <= i <= n; a ValueError saying what is expected otherwise."""
        match = _FORM.match(str(text))
        if not match:
            raise ValueError("expected i/n, e.g. 2/3 (the second of three shards)")
        index, count = int(match[1]), int(match[2])
        if count < 1 or not 1 <= index <= count:
            raise ValueError(f"expected i/n with 1 <= i <= n, e.g. 1/{max(count, 2)}")
        return cls(index, count)

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"

    def holds(self, case_id: str) -> bool:
        return shard_number(case_id, self.count) == self.index


def canonical(text: object) -> str:
    """The task-argument check: `-T shard= 2 / 3` is kept as `2/3`."""
    return str(Shard.parse(text))


def sizes(case_ids: list[str], count: int) -> list[int]:
    """How many of these samples (by their case's id) each shard 1..count holds."""
    counts = [0] * count
    for case_id in case_ids:
        counts[shard_number(case_id, count) - 1] += 1
    return counts


def metadata(shard: Shard | None, case_ids: list[str]) -> dict[str, object]:
    """What a sharded task records: its shard and the sample count of every shard of the whole
    task (`case_ids`: each sample's case id, before sharding)."""
    if shard is None:
        return {}
    return {"shard": str(shard), "shard_sizes": sizes(case_ids, shard.count)}
