"""How the scripted customer, and the graders that read asking, read a Japanese reply.

Japanese asks at the end of its sentence: a question ends in か or ？ (〜ですか, 〜でしょうか,
〜ますか, 〜ませんか), a request in a request form (〜てください, 〜ていただけますか, お〜ください,
ご〜ください, 〜をお願いします, 教えて). A closing offer (「ほかに何かございますか？」, 「何かございましたら
お気軽にどうぞ」) asks for nothing the customer holds.

A fact is asked when an asking sentence names one of its topics as the thing asked: in the
clause that carries the question or request (after the last reason or condition: 「郵便番号が一致
しないため、メールアドレスを教えてください」 asks for the email only), and not as a means or a place
(「ご登録の郵便番号宛てに」, 「メールアドレスで確認します」), nor by quoting the value the customer gave
(unless it offers a choice: 「A か B か」, 「それとも」). A consent is asked by a permission question
(〜てもよろしいですか, 〜しましょうか, 「はい」とお返事ください) that seeks no fact and is no question of
which, what or when: for the writes its sentence names, else for those the reply names, else a
bare go-ahead for the case's only consent. The rules mirror the English reader's
(cases/customer.py); the words are Japanese grammar, not phrases copied from cases.
"""

from __future__ import annotations

import re
import unicodedata
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from commerce_evals.cases.customer import Customer, Reveal

_SENTENCE = re.compile(r"(?<=[。！？!?])\s*|\n+")
_LIST_ITEM = re.compile(r"^\s*(?:[-*•・]|\d+[.)．])\s*")
_QUESTION_END = re.compile(r"(?:か|かね|かな|の|[?？])\s*[。．]?\s*$")
_REQUEST = re.compile(
    r"(?:て|で)(?:ください|下さい|くださいませ|いただけ(?:ます|ません)|もらえ(?:ます|ません)|いただきたく"
    r"|いただければ)|(?:お|ご)[\u3040-\u309f\u4e00-\u9fff\u30a0-\u30ff]{1,8}(?:ください|下さい|願います)"
    r"|お願い(?:します|いたします|できます|できません)|教えて|お知らせ|お聞かせ|ご記入|ご入力|ご教示"
)
_CLOSING = re.compile(
    r"(?:ほか|他)に(?:何か|なにか|ご不明|ご質問|お手伝い|ご用)|何かございましたら|何かあれば|お気軽に"
    r"|いつでも(?:ご連絡|お問い合わせ|お声がけ)|よい一日|良い一日|ご利用ありがとう"
)
# a clause that gives the question its reason, condition or means: what stands in it is context
_CONTEXT_CLAUSE_END = re.compile(
    r"(?:ため|ので|から|けれど|けど|が|場合|ところ|と|ば|たら|際)[、,]"
)
# a topic followed by one of these is a means, a place or a source, not the thing asked
_CONTEXT_AFTER = re.compile(
    r"^\s*(?:で(?!す|しょう)|宛|あて|へ|から(?!の)|として|より|までに|に(?:て|よ|つ))"
)
_CHOICE = re.compile(r"か[、,]?\s*\S+か|それとも|または|もしくは|どちら")
_FACT_QUESTION = re.compile(
    r"どの|どれ|何|なに|なん|どちら|どっち|いつ|どこ|いくら|いくつ|どなた|誰|どう|どのよう|何点|何個|何日"
)
_PERMISSION = re.compile(
    r"(?:て|で)?(?:も)?(?:よろしい|宜しい|いい|よい|構いません|かまいません)(?:です|でしょう)?か"
    r"|(?:し|いたし|進め|行い|実行し|手配し|確定し)ましょうか|(?:進め|実行し|確定し)(?:ます|ても)"
    r"|「?はい」?と(?:お?返事|お?答え|返信|ご返信|お知らせ)|ご同意|ご承諾|承認|よろしければ"
)
_BARE_PERMISSION = re.compile(r"進め|はい|よろしい|実行|このまま|この内容")
_YES = re.compile(
    r"^\W*(?:はい|ええ|うん|お願い(?:します|いたします)?|それでお願い|大丈夫|OK|オッケー|了解|いいです|"
    r"構いません|かまいません|進めてください|どうぞ|もちろん|ぜひ|そうしてください|そうです|その通り)",
    re.IGNORECASE,
)
_NO = re.compile(
    r"^\W*(?:いいえ|いや|いえ|やめ|待って|ちょっと待|結構です|けっこうです|いらない|不要|しないで|ダメ|だめ)"
)
_VALUE = re.compile(r"[\w.+-]+@[\w.-]+|[A-Za-z0-9][A-Za-z0-9-]*\d[A-Za-z0-9-]*|\d[\d-]{2,}")


def plain(text: str) -> str:
    return unicodedata.normalize("NFKC", re.sub(r"[*_`]+", "", text))


def sentences(reply: str) -> list[str]:
    """The reply's sentences; a line ending in ：or : and the list lines under it are one."""
    units: list[str] = []
    collecting = False
    for line in plain(reply).splitlines():
        line = line.strip()
        if not line:
            continue
        item = _LIST_ITEM.match(line)
        if item and collecting:
            units[-1] += " " + line[item.end() :].rstrip("。．、 ") + "、"
            continue
        body = line[item.end() :] if item else line
        units += [p.strip() for p in _SENTENCE.split(body) if p.strip()]
        collecting = bool(units) and units[-1].rstrip().endswith((":", "："))
    return units


def asks(sentence: str) -> bool:
    return bool(_QUESTION_END.search(sentence) or "?" in sentence or _REQUEST.search(sentence))


def asking_sentences(reply: str) -> list[str]:
    """The sentences that ask the customer something, closing offers left out."""
    return [s for s in sentences(reply) if asks(s) and not _CLOSING.search(s)]


def _asked_clause(sentence: str) -> str:
    """The part of the sentence that carries the question or request: after its last reason,
    condition or means clause."""
    cut = max((m.end() for m in _CONTEXT_CLAUSE_END.finditer(sentence)), default=0)
    return sentence[cut:]


def _topics(reveal: Reveal) -> list[str]:
    return [plain(t).strip() for t in reveal.topics if t.strip()]


def sought_in(reveal: Reveal, sentence: str) -> bool:
    """Whether the sentence seeks this (data) reveal: a topic in the clause that asks, not as a
    means or a place, and not quoting the customer's own value (unless it offers a choice)."""
    choice = bool(_CHOICE.search(sentence))
    if not choice and any(v.casefold() in sentence.casefold() for v in reveal.values):
        return False
    clause = _asked_clause(sentence)
    for topic in _topics(reveal):
        for m in re.finditer(re.escape(topic), clause, re.IGNORECASE):
            if _CONTEXT_AFTER.match(clause[m.end() :]):
                continue
            return True
    return False


def names_topic(reveal: Reveal, text: str) -> bool:
    return any(t.casefold() in text.casefold() for t in _topics(reveal))


def asked(customer: Customer, reply: str) -> list[Reveal]:
    """The reveals a Japanese reply asks for, in declaration order."""
    found: set[str] = set()
    data = [r for r in customer.reveals if not r.is_consent]
    consents = [r for r in customer.reveals if r.is_consent]
    units = [s for s in sentences(reply) if asks(s)]
    whole = plain(reply)
    for sentence in units:
        sought = [r for r in data if sought_in(r, sentence)]
        found.update(r.name for r in sought)
        if sought or _FACT_QUESTION.search(_asked_clause(sentence)):
            continue
        if any(names_topic(r, sentence) for r in data):
            continue  # 「郵便番号は150-0001でよろしいですか？」 confirms a fact, asks no go-ahead
        if not _PERMISSION.search(sentence):
            continue
        named = [r for r in consents if names_topic(r, sentence)]
        if not named:
            named = [r for r in consents if names_topic(r, whole)]
        if not named and len(consents) == 1 and _BARE_PERMISSION.search(sentence):
            named = consents
        found.update(r.name for r in named)
    return [r for r in customer.reveals if r.name in found]


def says_yes(text: str) -> bool:
    """Whether a customer's message opens with a yes (and not with a no)."""
    text = plain(text).strip()
    return bool(_YES.match(text)) and not _NO.match(text)


def values(say: str) -> tuple[str, ...]:
    """The tokens of a Japanese answer that carry its value: an email, a postal code, an order
    number (「郵便番号は150-0001です」 -> 150-0001)."""
    return tuple(m.group(0) for m in _VALUE.finditer(plain(say)) if len(m.group(0)) >= 3)


def withholds(customer: Customer, text: str) -> bool:
    """Whether `text` holds a reveal's value, or the whole of a short answer."""
    lowered = plain(text).casefold()
    for reveal in customer.reveals:
        if reveal.is_consent:
            continue
        if any(v.casefold() in lowered for v in reveal.values):
            return True
        core = re.sub(r"(?:です|でした|だよ|です。|。|、|!|！)+$", "", plain(reveal.say).strip())
        if 0 < len(core) <= 8 and core.casefold() in lowered:
            return True
    return False


def unknown_line(customer: Customer) -> str:
    kept = [
        s
        for s in re.split(r"(?<=[。！？!?])", customer.goal)
        if s.strip() and not withholds(customer, s)
    ]
    return "".join(["それは分かりません。", *kept])
