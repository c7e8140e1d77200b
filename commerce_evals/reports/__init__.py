"""The run pattern: reading logs, sets and their gates, diffs, model comparison, trends.

logs.py        logs from files or folders, samples sorted by (id, epoch), per-case results
set_spec.py    the sets file (datasets/sets.yaml) and which cases a set selects
gating.py      a set's thresholds over its logs
diffing.py     two runs case by case; stats.py holds McNemar's test
comparison.py  a sweep's models side by side; frames.py, prices.py; compare_report.py builds its reports
traffic.py     the captured-traffic file format; trends.py, verdicts per dimension over time
report.py      the report model (typed blocks); terminal.py, markdown.py and charts.py render it
formatting.py  how a case's epochs, a rate, a cost and judge tokens are written in a cell
judge_records.py  a log's judged samples: the case, the Run, the score, for label, calibrate, notes
"""
