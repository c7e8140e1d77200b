"""The authoring lint, run by `commerce-evals lint`: model.py (cases loaded and replayed by the
core), rules/<family>.py (the rules), registry.py (the rule type), runner.py (check, in order)."""
