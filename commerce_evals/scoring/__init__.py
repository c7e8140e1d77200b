"""A run becomes a score: the Inspect scorer composing the code grades, the domain's invariants and
the judge; its metrics and the injection rates; where the Run lives beside the TaskState and in
the sample store. Above grading, the domains and judging, which it composes; below the harness,
which builds the task around it."""
