"""The Japanese readers of the reply graders: typed facts, statuses, claims, sourced values and
facts about records, each chosen by the shared reader (facts.py, statuses.py, claims.py,
sourced.py, record_facts.py) when the text is Japanese (commerce_evals/japanese)."""
