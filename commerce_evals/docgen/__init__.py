"""Every figure the README and docs/ state about the data, generated from the data.

    python -m commerce_evals.docgen              # rewrite every figure, table and sample output
    python -m commerce_evals.docgen --skip-runs  # only what the case files and fixtures give
    python -m commerce_evals.docgen --check      # rewrite nothing; exit 1 naming what differs

data.py    the counts, read from datasets/, fixtures/ and poisoned/
claims.py  figures in the prose: a pattern per sentence, a function per figure
blocks.py  tables generated whole between markers (the key table, support's coverage)
runs.py    figures of offline runs (what a run costs, the metric rows of a flow)
samples.py sample outputs of the run-pattern commands, from offline runs
docs.py    applies them to the docs' text
"""
