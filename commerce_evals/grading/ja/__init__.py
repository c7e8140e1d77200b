"""The Japanese readers of the reply graders: statuses, claims, sourced values and facts about
records, each chosen by the shared reader (statuses.py, claims.py, sourced.py, record_facts.py)
when the text is Japanese (commerce_evals/japanese; its typed facts are japanese/facts.py)."""
