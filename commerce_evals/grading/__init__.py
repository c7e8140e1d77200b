"""Code grading: the key registry, graders, invariants, the closed-world outcome and the scorer."""
