"""McNemar's test on paired pass/fail outcomes: is a change in pass rate beyond noise?

Only the discordant cases carry information: b passed in the base run and failed in the new one,
c failed and then passed. Under "no change" each discordant case is a fair coin, so with few of
them (b + c < 25) the two-sided p-value is the exact binomial one,
    p = min(1, 2 * sum_{i <= min(b, c)} C(b + c, i) / 2^(b + c)),
and with more the chi-square statistic with continuity correction, (|b - c| - 1)^2 / (b + c),
on one degree of freedom (p = erfc(sqrt(x / 2))).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

EXACT_BELOW = 25
Method = Literal["exact binomial", "chi-square with continuity correction", "none"]


@dataclass(frozen=True)
class McNemar:
    shared: int  # cases scored in both runs
    b: int  # passed in base, failed in new
    c: int  # failed in base, passed in new
    method: Method
    statistic: float | None
    p_value: float

    @property
    def discordant(self) -> int:
        return self.b + self.c

    def beyond_noise(self, alpha: float = 0.05) -> bool:
        return self.discordant > 0 and self.p_value < alpha

    def describe(self, alpha: float = 0.05) -> str:
        if self.method == "none":
            return f"McNemar: no case changed between the runs ({self.shared} shared): no evidence of a change"
        stat = "" if self.statistic is None else f", chi2 = {self.statistic:.3f}"
        verdict = (
            "beyond noise" if self.beyond_noise(alpha) else "within noise"
        ) + f" at alpha = {alpha:g}"
        return (
            f"McNemar ({self.method}, b + c = {self.discordant}"
            f"{' < ' if self.method == 'exact binomial' else ' >= '}{EXACT_BELOW}): "
            f"{self.b} passed -> failed, {self.c} failed -> passed of {self.shared} shared; "
            f"p = {self.p_value:.4g}{stat}: {verdict}"
        )


def exact_p(b: int, c: int) -> float:
    n = b + c
    if n == 0:
        return 1.0
    tail = sum(math.comb(n, i) for i in range(min(b, c) + 1)) / 2**n
    return min(1.0, 2 * tail)


def chi_square_p(b: int, c: int) -> tuple[float, float]:
    statistic = (abs(b - c) - 1) ** 2 / (b + c)
    return statistic, math.erfc(math.sqrt(statistic / 2))


def mcnemar(pairs: list[tuple[bool, bool]]) -> McNemar:
    """`pairs` are (passed in base, passed in new) for each case both runs scored."""
    b = sum(1 for base, new in pairs if base and not new)
    c = sum(1 for base, new in pairs if new and not base)
    if b + c == 0:
        return McNemar(len(pairs), 0, 0, "none", None, 1.0)
    if b + c < EXACT_BELOW:
        return McNemar(len(pairs), b, c, "exact binomial", None, exact_p(b, c))
    statistic, p = chi_square_p(b, c)
    return McNemar(len(pairs), b, c, "chi-square with continuity correction", statistic, p)


def wilson(passes: int, n: int, z: float = 1.959964) -> tuple[float, float] | None:
    """The Wilson score interval (95% by default) of a pass rate `passes / n`; None when n is 0.

    Unlike the normal approximation it stays inside [0, 1] and is not zero-width at 0/n or n/n,
    which is where a small eval set's rates often sit."""
    if n <= 0:
        return None
    p = passes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)
