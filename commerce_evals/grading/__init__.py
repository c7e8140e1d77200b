"""Code grading: the key registry, graders, invariants, the closed-world outcome, facts read from
replies and the score metadata. Pure functions over a Run and what the graders are told; the scorer
that composes them is scoring/."""
