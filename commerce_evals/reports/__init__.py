"""The run pattern: reading logs, sets and their gates, diffs, model comparison, trends.

logs.py        logs from files or folders, samples sorted by (id, epoch), per-case results
set_spec.py    the sets file (datasets/sets.yaml) and which cases a set selects
gating.py      a set's thresholds over its logs
diffing.py     two runs case by case; stats.py holds McNemar's test
comparison.py  a sweep's models side by side; frames.py, prices.py, compare_report.py, charts.py
traffic.py     the captured-traffic file format; trends.py, verdicts per dimension over time
formatting.py  shared rich tables
"""
