"""Where the data folders live, in a source checkout and in an installed wheel alike.

The repository keeps `datasets/`, `fixtures/` and `poisoned/` at its top level, where people
author them. A wheel (or a non-editable `pip install`) carries copies of them inside the package,
under `commerce_evals/_data/` (setup.py puts them there). Every path to them goes through
`data_dir`, so an editable install, a source checkout and a wheel resolve the same way, and a
user's own folders (`-T dataset=`, `-T fixtures=`) still take precedence where they are given.
"""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path
from typing import Literal

DataFolder = Literal["datasets", "fixtures", "poisoned"]

# A top-level site-packages/datasets may be another project's package, so a checkout is only
# trusted when its pyproject names this project.
_CHECKOUT_MARKER = 'name = "commerce-evals"'


def packaged_root() -> Path:
    """Where an installed wheel keeps the data folders."""
    return Path(str(files("commerce_evals"))) / "_data"


def checkout_root() -> Path | None:
    """The repository the package was imported from, if it was imported from one."""
    root = Path(__file__).resolve().parents[2]
    pyproject = root / "pyproject.toml"
    if pyproject.is_file() and _CHECKOUT_MARKER in pyproject.read_text(encoding="utf-8"):
        return root
    return None


def data_dir(name: DataFolder) -> Path:
    """The folder `name`: the packaged copy in an install, the top-level folder in a checkout."""
    packaged = packaged_root() / name
    if packaged.is_dir():
        return packaged
    checkout = checkout_root()
    if checkout is not None:
        return checkout / name
    # Neither: a broken install. Return the packaged path so the error names where it was sought.
    return packaged
