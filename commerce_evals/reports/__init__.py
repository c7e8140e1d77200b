"""The run pattern: reading logs, sets and their gates, diffs, model comparison, trends.

logs.py        logs from files or folders, samples sorted by (id, epoch), per-case results
set_spec.py    the sets file (datasets/sets.yaml) and which cases a set selects
gating.py      a set's thresholds over its logs
diffing.py     two runs case by case; stats.py holds McNemar's test
comparison.py  a sweep's models side by side; frames.py, prices.py; compare_report.py builds its reports
traffic.py     the captured-traffic file format; trends.py, verdicts per dimension over time
report.py      the report model (typed blocks); terminal.py, markdown.py and charts.py render it
tokens.py      every part of a model's token usage (cache reads and writes, reasoning)
formatting.py  how a case's epochs, a rate, a cost and judge tokens are written in a cell
run_text.py    a Run as text: one walk over its events, in the judge's style or a person's
"""
