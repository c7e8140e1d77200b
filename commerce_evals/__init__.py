"""commerce-evals: Inspect AI tasks that measure what a tool-using commerce agent decides."""
