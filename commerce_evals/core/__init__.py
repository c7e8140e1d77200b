"""The bottom layer: what every package may import, importing nothing of commerce_evals.

The Run and its events, read-only JSON values, the flow table, `Strict` (the base of every model a
person's file is read into) and token counts.
"""
