"""Scripted models for offline runs: the reference, the judge, chaos and flawed agents."""
