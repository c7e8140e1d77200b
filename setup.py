"""Copies the top-level data folders into the package when a wheel is built.

People author `datasets/`, `fixtures/` and `poisoned/` at the repository's top level; a wheel
must carry them, so they are copied to `commerce_evals/_data/` in the build (never in the source
tree). Editable installs read the top-level folders directly (commerce_evals/cases/paths.py).
"""

from __future__ import annotations

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

DATA_FOLDERS = ("datasets", "fixtures", "poisoned")
IGNORED = shutil.ignore_patterns("__pycache__", "*.pyc", ".*")


class build_py_with_data(build_py):
    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            return
        here = Path(__file__).parent
        target = Path(self.build_lib) / "commerce_evals" / "_data"
        for name in DATA_FOLDERS:
            destination = target / name
            if destination.exists():
                shutil.rmtree(destination)
            shutil.copytree(here / name, destination, ignore=IGNORED)


setup(cmdclass={"build_py": build_py_with_data})
