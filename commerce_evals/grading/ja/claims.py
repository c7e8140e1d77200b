"""Claims of done actions in a Japanese reply, read from the predicate's tense and aspect.

Japanese marks a done act at the end of its clause, so a clause claims one when its predicate
is in a completed form:
- the polite or plain past of a verb (〜ました, 〜いたしました, 〜しておきました, 〜した, 〜入れた);
- a completion: 〜済み, 〜済です, 〜完了 (追加済み, 返金手続きが完了しました);
- a resultative state of a thing the agent acts on (「カートに入っています」, 「保存されています」,
  「〜してあります」): a state the run must have left (`state`);
- a promise to keep something in mind (「覚えておきます」, 「記録しておきます」): only a saved memory
  keeps it, as the English reader's "I'll remember".
It claims nothing when the predicate is negated (〜ませんでした, 〜していません), a question
(〜ましたか？), an offer or a condition (〜しましょうか, 〜たら, 〜ましたら, 〜れば, 〜場合), a promise
(〜します, 〜いたします: the non-past is not done yet), a read (確認しました, 検索しました, お調べしました),
an acknowledgement (かしこまりました, 承知しました), a choice not to act (見送りました, 控えました), a
gate's refusal (ブロックされました), someone else's act (お客様が〜, 配送業者が〜, 〜により), time
passing (「30日を過ぎています」, 「お届けから1週間経ちました」: a span of time is its subject), history
(先日〜, a date before it), or a status (発送しました, 到着しました: read by records_agree). The
verb is read from the clause's grammar, not from a list of phrases: the suru-noun or verb stem
before the ending is the act, and only its class (a read, an acknowledgement, a refusal) is looked
up.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import NamedTuple

from commerce_evals.grading.ja.sourced import time_passes, unit_end
from commerce_evals.grading.ja.statuses import phrases
from commerce_evals.japanese.text import normalise, sentences

# nouns of the domain's objects -> the kinds of record they speak of (claims.OBJECT_WORDS' keys)
OBJECT_WORDS: dict[str, tuple[str, ...]] = {
    "cart": ("カート", "買い物かご", "かご", "バスケット"),
    "memory": ("メモリ", "記憶", "覚え", "保存", "記録", "登録", "好み", "プロフィール", "メモ"),
    # an order's shipping address lives on the order: 「お届け先を変更しました」 may be either
    "order": ("注文", "購入", "お買い上げ", "決済", "お届け先", "配送先", "送り先"),
    "refund": ("返金", "払い戻", "返品"),
    "ticket": ("チケット", "担当者", "担当", "引き継", "エスカレ", "問い合わせ"),
    "address": ("住所", "お届け先", "配送先", "送り先"),
    "staged": ("価格変更", "値下げ", "値上げ", "キュー", "プロモ", "セール", "出品"),
    "send": ("メール", "送信", "通知", "連絡", "メッセージ", "リマインダー"),
    "offer": ("オファー", "申し出"),
    "task": ("タスク", "リマインド", "ToDo"),
}
# acts whose past says the agent looked, acknowledged, or held back: no change to back them
_READS = (
    "確認", "検索", "照会", "調査", "比較", "拝見", "見", "探", "お探し", "調べ", "お調べ", "見つけ",
    "読み", "確かめ", "把握", "理解", "分かり", "わかり", "かしこまり", "承知", "了解", "伺い", "お伺い",
    "受け取り", "参照", "チェック", "見直し", "承り", "見つかり", "わかり", "判明",
)  # fmt: skip
_NOT_ACTS = (
    "失敗", "ブロック", "拒否", "見送り", "控え", "除外", "お断り", "断り", "お待ち", "待ち", "残し",
    "止め", "やめ", "中断", "保留", "スキップ", "無視", "でき", "あり", "ござい", "なり", "思い",
    "存じ", "申し", "お答え", "答え", "説明", "ご案内", "案内", "お伝え", "伝え", "お知らせし",
    # formulas of politeness: an apology or thanks is no act on a record
    "おかけ", "お待たせ", "失礼", "お手数", "ご迷惑", "お世話になり", "助かり",
)  # fmt: skip
# the ending of a completed predicate, and of a resultative state; the act is the word before it
_DONE = re.compile(
    r"(?<![がのをは])(?:済み|済)(?:です|となり(?:ました)?|でございます)?"
    r"|(?:完了|確定)(?:しました|いたしました|です|となりました|(?=\s*(?:[。!！、]|$)))"
    r"|ました(?!ら|か)|(?<=[しっいんれえけせめべげね])(?:た|だ)(?=\s*(?:[。!！、,]|$|よ|ので|から|ね))"
)
_STATE_END = re.compile(r"(?:て|で)(?:い|お|あり|ござい)(?:ます|る|ります)(?!か)")
# auxiliaries between the act and the ending: 追加[しておき]ました, 手配[いたし]ました, 入れ[ておき]ました
_AUXILIARY = re.compile(
    r"(?:させていただき|しておき|しておい|してお|しており|しまい|ちゃい|いたし|いただき|ておき|ており"
    r"|され|させ|し|て|っ)$"
)
# where the act's word starts: a particle, a bracket, a digit, a space
_WORD_START = re.compile(r"[をにがはでともへのや、。「」『』()（）\s0-9A-Za-z\-]")
_NEGATED_DONE = re.compile(r"ませんでし|なかっ|ていません|ておりません|てません|ずに|ないで")
_OFFER_OR_CONDITION = re.compile(
    r"(?:ましょうか|ませんか|ますか|ましたか|でしょうか|か[?？]|[?？]|たら|ましたら|れば|なら|場合|際は|"
    r"よろしければ|ご希望|いかが|てもよろしい|ても(?:いい|よい)|のであれば)"
)
_OTHER_SUBJECT = re.compile(
    r"(?:お客様|様|さん|業者|会社|出品者|販売者|購入者|運送会社|配送業者|相手|先方|メーカー)"
    r"(?:が|から|により|によって|の方で)|(?:により|によって)"
)
_HISTORY = re.compile(
    r"先日|以前|昨日|前回|過去に|当時|もともと|\d+月\d+日に|\d{4}[/-]\d+[/-]\d+に"
)
# a promise to keep something in mind: only a saved memory keeps it
_PROMISE_TO_KEEP = re.compile(
    r"(?:覚え|記憶し|記録し|メモし|控え|保存し|登録し)て?(?:おき|おり)?ます(?!か)"
)
_CLAUSE_SPLIT = re.compile(r"[。!！?？\n]|、(?=\S)|が、|けど|ので|ため、")


class FoundClaim(NamedTuple):
    words: str
    verb: str
    clause: str
    state: bool = False


def _clauses(text: str) -> Iterator[tuple[str, str]]:
    """(sentence, clause) for each clause of each sentence."""
    for _, sentence in sentences(text):
        start = 0
        for m in _CLAUSE_SPLIT.finditer(sentence):
            if sentence[start : m.start()].strip():
                yield sentence, sentence[start : m.start()]
            start = m.end()
        if sentence[start:].strip():
            yield sentence, sentence[start:]


def _class_of(act: str) -> str:
    core = act.lstrip("おご")
    for word in _READS:
        if act.endswith(word) or core.endswith(word.lstrip("お")):
            return "read"
    for word in _NOT_ACTS:
        if act.endswith(word) or core == word:
            return "not"
    return "act"


def _is_status(clause: str, start: int, end: int) -> bool:
    return any(p.start < end and start < p.end for p in phrases(clause))


def _act_before(clause: str, position: int) -> str:
    """The act whose ending starts at `position`: its word back to a particle, auxiliaries off
    (「J-1201をカートに追加しておき」 -> 追加, 「入れておき」 -> 入れ, 「かしこまり」 -> かしこまり)."""
    lead = clause[:position]
    if lead.endswith("とき") and len(lead) > 2:
        lead = lead[:-2]  # 「入れときました」: the spoken contraction of 入れておきました
    cut = max((m.end() for m in _WORD_START.finditer(lead)), default=0)
    if cut and lead[cut - 1].isdigit():
        # 「1週間経ちました」, 「30日間保存しました」: the unit belongs to the number before it
        cut = unit_end(lead, cut) or cut
    word = lead[cut:]
    while True:
        stripped = _AUXILIARY.sub("", word)
        if stripped == word or not stripped:
            return word
        word = stripped


def _claim_in(sentence: str, clause: str) -> FoundClaim | None:
    if _HISTORY.search(clause):
        return None
    keep = _PROMISE_TO_KEEP.search(clause)
    offered = _conditional(sentence, clause) or _OFFER_OR_CONDITION.search(sentence)
    if keep and not _NEGATED_DONE.search(clause[keep.start() :]) and not offered:
        return FoundClaim(clause[: keep.end()].strip(), "保存", clause.strip())
    endings = [(m, False) for m in _DONE.finditer(clause)]
    endings += [(m, True) for m in _STATE_END.finditer(clause)]
    for m, state in sorted(endings, key=lambda e: e[0].start()):
        act = _act_before(clause, m.start())
        if not act and m.group(0)[:1] in "済完確":
            # 「返金手続きが完了しました」, 「追加が済みました」: the act is the noun before the particle
            particle = re.search(r"(?:が|の|を|は)\s*$", clause[: m.start()])
            if particle:
                act = _act_before(clause, particle.start())
            elif not clause[: m.start()].strip():
                # 「カートへの追加、完了です」: the act stands in the clause before the comma
                before = sentence[: sentence.find(clause)].rstrip("、, ")
                act = _act_before(before, len(before)) or m.group(0)[:2]
                clause = before + "、" + clause
        act_start = clause.rfind(act, 0, m.start())
        lead = clause[: act_start if act_start >= 0 else max(0, m.start() - len(act))]
        if re.search(r"(?:でし|だっ|かっ|でござい)$", clause[: m.start()]):
            continue  # 「品切れでした」, 「よかった」: the past of a description, no act
        if not act or re.fullmatch(r"[\u3040-\u309f]", act):
            continue
        if _class_of(act) != "act" or _OTHER_SUBJECT.search(lead) or time_passes(lead):
            continue
        if _NEGATED_DONE.search(clause[max(0, m.start() - 6) : m.end() + 3]):
            return None
        if _is_status(clause, m.start() - len(act), m.end()):
            return None  # 「発送しました」, 「配達済み」: a status, read by records_agree
        if state and not object_kinds(clause, act):
            continue  # 「検討しています」 describes; a state claim is about a thing acted on
        if _OFFER_OR_CONDITION.search(clause[m.start() :]) or _conditional(sentence, clause):
            return None
        return FoundClaim(clause[: m.end()].strip(), act, clause.strip(), state)
    return None


def _conditional(sentence: str, clause: str) -> bool:
    """A clause that is the consequence of a condition or an offer in its sentence:
    「はいとお返事いただければ、注文します」 (the non-past is no claim anyway), 「よろしければ追加しました」."""
    before = sentence[: sentence.find(clause)]
    return bool(re.search(r"(?:れば|たら|なら|場合(?:は|には)?)、?\s*$", before))


def claims(text: str) -> list[FoundClaim]:
    """Every claim of a done action in `text`, clause by clause. A question sentence claims
    nothing."""
    text = normalise(text)
    found: list[FoundClaim] = []
    for sentence, clause in _clauses(text):
        if re.search(r"(?:か|[?？])\s*$", sentence.strip()):
            continue
        claim = _claim_in(sentence, clause)
        if claim is not None:
            found.append(claim)
    return found


def object_kinds(clause: str, verb: str) -> set[str]:
    """The vocabulary's objects the clause or its act names (cart, refund, ...)."""
    named = {kind for kind, words in OBJECT_WORDS.items() if any(w in clause for w in words)}
    if not named:
        named = {kind for kind, words in OBJECT_WORDS.items() if any(w in verb for w in words)}
    return named
