"""Statuses a Japanese reply states, in their common written forms: the same statuses as the
English table (grading/statuses.py, which says what each is true of), other phrases.

A phrase is negated when its clause's predicate is: 「在庫がありません」 is in_stock negated (so out of
stock), 「在庫切れではありません」 out_of_stock negated, 「まだ発送されていません」 shipped negated; a
phrase that only modifies a noun (「在庫切れのため発送できません」) keeps its own meaning.
"""

from __future__ import annotations

import re
from functools import cache
from typing import NamedTuple

from commerce_evals.japanese.text import negated_after, normalise

PHRASES: dict[str, str] = {
    # a phrase about what may come (「在庫切れ間近」, 「品切れになる前に」) states no status now
    "out_of_stock": (
        r"(?:在庫切れ|在庫ぎれ|在庫なし|在庫無し|品切れ|品切(?!れ)|売り切れ|売切れ|売切(?!れ)|完売|欠品)"
        r"(?!間近|寸前|目前|しそう|になりそう|になる|する前|の前|の恐れ|のおそれ|が近)"
        r"|在庫(?:数)?(?:は|が)?\s?(?:0|ゼロ)(?:個|点|台|着|足)?(?!\d)|入荷待ち|お?取り寄せ"
    ),
    "in_stock": (
        r"在庫(?:が|は|も)?(?!あまり|ほとんど|わずか)[^、。がはも]{0,6}?(?:あり|有り|ある|ござい)|在庫(?:数)?(?:は|が)?\s?残り?\s?[1-9]\d*"
        r"|在庫(?:数)?(?:は|が)?\s?[1-9]\d*|残り\s?[1-9]\d*\s?(?:個|点|台|着|足)|購入(?:可能|いただけ)"
        r"|即納|すぐに発送でき|在庫品"
    ),
    "delayed": (
        r"遅延|遅れ|延着|延期|ずれ込|後ろ倒し|予定より(?:遅|後)"
        r"|(?:新しい|変更後の|更新後の|最新の)(?:お届け|配達|到着)?(?:予定日|予定|日程)"
        r"|(?:お届け|配達|到着)(?:予定日|予定|日)(?:が|は)(?:変更|更新)"
    ),
    "on_schedule": r"予定どおり|予定通り|遅延なく|遅れなく|順調|定刻",
    "in_transit": (
        r"配送中|輸送中|配達中|お届け中|移動中|運送中|(?:配送|運送|宅配)(?:会社|業者)に(?:引き渡|お渡し)"
        r"|(?:お客様の|ご自宅|こちら)(?:へ|に)向かって"
    ),
    "shipped": (
        r"発送済み?|出荷済み?|発送(?:いた)?しました|出荷(?:いた)?しました|発送され|出荷され"
        r"|発送完了|出荷完了|発送して(?:い|お)"
    ),
    "delivered": (
        r"配達済み?|配達完了|お届け済み?|配達され|お届けしました|到着しました|到着済み?|届きました"
        r"|届いて(?:い|お)|受け取り済み?"
    ),
    "not_shipped": r"未発送|未出荷|発送前|出荷前|発送準備中|出荷準備中|準備中|梱包中|処理中",
    "waiting": r"保留中|未対応|回答待ち|返答待ち|承認待ち|審査中|検討中|未回答|待機中|受付中",
    "accepted": r"承諾|受諾|承認済み?|承認されました",
    "declined": r"却下|辞退|お断り|拒否",
    "withdrawn": r"取り下げ|撤回",
    "listed": r"出品中|掲載中|販売中",
    "paused": r"一時停止|停止中|休止中",
    "simulated": r"シミュレーション|模擬|記録のみ|記録しただけ|実際には送信",
}


class FoundStatus(NamedTuple):
    name: str
    start: int
    end: int
    text: str
    negated: bool


@cache
def _pattern(name: str) -> re.Pattern[str]:
    return re.compile(rf"(?:{PHRASES[name]})")


def phrases(text: str) -> list[FoundStatus]:
    """Every status phrase of `text` (normalised), longest first, never overlapping."""
    text = normalise(text)
    candidates = [(name, m) for name in PHRASES for m in _pattern(name).finditer(text)]
    candidates.sort(key=lambda c: c[1].start() - c[1].end())
    found: list[FoundStatus] = []
    for name, m in candidates:
        if any(m.start() < f.end and f.start < m.end() for f in found):
            continue
        negated = negated_after(text, m.end())
        found.append(FoundStatus(name, m.start(), m.end(), m.group(0), negated))
    return sorted(found, key=lambda f: f.start)
