"""Seed 003's authoring loop before a case exists: inputs drafted from dimensions, notes on failed
runs grouped into failure modes, and case skeletons drafted from failures. A person finishes every
draft; nothing here fills in `expected` on its own."""
