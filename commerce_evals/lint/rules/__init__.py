"""The lint's rule families, one module each; every rule is a pure function over a LintRun
(commerce_evals/lint/model.py) that returns findings, listed in its family's RULES."""
