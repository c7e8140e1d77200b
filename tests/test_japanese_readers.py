"""The readers in both languages: each English reading the Japanese seam must leave as it was,
and the Japanese reading beside it (commerce_evals/japanese, grading/ja, cases/asking_ja.py).

Every Japanese form the issue names is read: 12,800円, ¥12,800, 一万二千八百円, 12月2日, 十二月二日,
2026/12/02, 10個, 十個, 在庫なし, 品切れ; negation and contrast after the word; claims from tense and
aspect; asking from the sentence's ending; words that hold numeral characters stay words.
"""

from __future__ import annotations

from datetime import date
from typing import Any

import pytest

from commerce_evals.cases.customer import Customer, asking_sentences, says_yes, scripted_reply
from commerce_evals.core.events import ToolResultEvent
from commerce_evals.facts import mentions, normalise, token_positions
from commerce_evals.grading.claims import claims, object_tables
from commerce_evals.grading.graders import GradeContext
from commerce_evals.grading.literals import says
from commerce_evals.grading.record_facts import problems_in
from commerce_evals.grading.records import Records
from commerce_evals.grading.sourced import sourced_values, stated_values
from commerce_evals.grading.statuses import phrases
from commerce_evals.japanese.numerals import numerals_as_digits
from commerce_evals.japanese.text import is_japanese, search_tokens
from commerce_evals.lint.rules.keys import literal_reply_problem
from tests.helpers import call, make_run, reply


def _values(text: str, kind: str) -> list[float | date]:
    return [m.value for m in mentions(text) if m.kind == kind and not m.negated and not m.in_range]


# ---- which reader reads a text ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "japanese"),
    [
        ("It's $12.80 now.", False),
        ("Café au lait, €4", False),
        ("12,800円です", True),
        ("¥12,800", True),
        ("在庫切れ", True),
        ("カート", True),
    ],
)
def test_a_text_is_japanese_by_its_script(text: str, japanese: bool) -> None:
    assert is_japanese(text) is japanese


# ---- numerals --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("written", "read"),
    [
        ("一万二千八百円", "12800円"),
        ("十二月二日", "12月2日"),
        ("十個", "10個"),
        ("二〇二六年", "2026年"),
        ("1万2800円", "12800円"),
        ("三割引", "3割引"),
        ("¥一万", "¥10000"),
    ],
)
def test_kanji_numerals_that_write_a_quantity_read_as_digits(written: str, read: str) -> None:
    assert numerals_as_digits(written) == read


@pytest.mark.parametrize(
    "word", ["一覧", "一緒に", "統一", "十分な在庫", "一番安い", "一度", "万一", "一時的に"]
)
def test_numeral_characters_in_a_word_stay_a_word(word: str) -> None:
    assert numerals_as_digits(word) == word
    assert not mentions(word)


def test_english_number_words_are_read_as_before() -> None:
    assert normalise("thirty-two dollars") == "32 dollars"
    assert _values("It's thirty-two dollars, down from $35.", "money") == [32.0, 35.0]


# ---- typed facts -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "12,800円です",
        "¥12,800です",
        "一万二千八百円です",
        "１２，８００円",
        "12,800 JPY",
        "1万2800円",
    ],
)
def test_money_in_every_japanese_form(text: str) -> None:
    assert _values(text, "money") == [12800.0]


@pytest.mark.parametrize(
    "text",
    [
        "12月2日にお届け",
        "十二月二日にお届け",
        "2026/12/02着",
        "12/2着",
        "2026年12月2日(水)",
        "令和8年12月2日",
    ],
)
def test_dates_in_every_japanese_form(text: str) -> None:
    assert [d for d in _values(text, "date") if isinstance(d, date)][0].timetuple()[1:3] == (12, 2)


@pytest.mark.parametrize(
    ("text", "count"), [("10個", 10.0), ("十個", 10.0), ("3点", 3.0), ("2つ", 2.0)]
)
def test_counts_with_their_counters(text: str, count: float) -> None:
    assert _values(text, "count") == [count]


@pytest.mark.parametrize(
    ("text", "percent"), [("30%オフ", 30.0), ("30パーセント", 30.0), ("3割引", 30.0)]
)
def test_percents(text: str, percent: float) -> None:
    assert _values(text, "percent") == [percent]


def test_a_date_dateparser_would_shift_is_no_date() -> None:
    assert not _values("2月30日", "date")


def test_japanese_negation_reads_the_predicate_after_the_value() -> None:
    found = mentions("12,800円ではなく、現在は13,800円です。")
    assert [(m.value, m.negated) for m in found] == [(12800.0, True), (13800.0, False)]
    assert mentions("12月2日には届きません")[0].negated
    # a value that only modifies a noun is not what the negation denies
    assert not mentions("12,800円の商品は在庫がありません")[0].negated


def test_english_negation_reads_the_word_before_the_value() -> None:
    assert [(m.value, m.negated) for m in mentions("not $139, it's $159")] == [
        (139.0, True),
        (159.0, False),
    ]


def test_ranges_and_changes() -> None:
    assert all(m.in_range for m in mentions("5,000円〜8,000円のもの"))
    assert all(m.in_range for m in mentions("5,000円から8,000円までの商品"))
    assert not any(m.in_range for m in mentions("12,800円から13,800円に値上がりしました"))
    assert all(m.in_range for m in mentions("between $30 and $35"))
    assert not any(m.in_range for m in mentions("from $139 to $159"))


def test_ids_stand_whole_in_text_without_spaces() -> None:
    assert token_positions("J-1201をカートに追加", "J-1201") == [0]
    assert token_positions("J-12010を", "J-1201") == []
    assert token_positions("トレイルランニングシューズ", "トレイル") == []
    assert token_positions("the CH-10 and CH-103", "CH-10") == [4]


# ---- statuses --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "meaning"),
    [
        ("在庫なしです", "out_of_stock"),
        ("品切れです", "out_of_stock"),
        ("在庫切れです", "out_of_stock"),
        ("売り切れです", "out_of_stock"),
        ("在庫がありません", "out_of_stock"),
        ("在庫は0個です", "out_of_stock"),
        ("在庫切れではありません", "in_stock"),
        ("在庫は10個あります", "in_stock"),
        ("まだ発送されていません", "not_shipped"),
        ("未発送です", "not_shipped"),
        ("発送済みです", "shipped"),
        ("遅延しています", "delayed"),
        ("予定どおりです", "on_schedule"),
        ("isn't in stock", "out_of_stock"),
        ("sold out", "out_of_stock"),
        ("hasn't shipped", "not_shipped"),
    ],
)
def test_statuses_in_both_languages(text: str, meaning: str) -> None:
    assert [p.meaning for p in phrases(text)] == [meaning]


def test_a_status_that_only_modifies_a_noun_keeps_its_meaning() -> None:
    assert [p.meaning for p in phrases("在庫切れのため発送できません")] == ["out_of_stock"]


# ---- claims ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "J-1201をカートに追加しました。",
        "カートに入れておきました！",
        "返金手続きが完了しました。",
        "返金済みです。",
        "住所を変更いたしました。",
        "担当者に引き継ぎました。",
        "カートに入っています。",
        "TPEがお好みとのこと、覚えておきます。",
        "I tucked a pair into your cart.",
        "Your refund has been issued.",
    ],
)
def test_a_done_act_is_a_claim_in_both_languages(text: str) -> None:
    assert claims(text), text


@pytest.mark.parametrize(
    "text",
    [
        "追加しましょうか？",
        "まだ追加していません。",
        "追加できませんでした。",
        "在庫を確認しました。",
        "かしこまりました。",
        "はいとお返事いただければ、注文を確定します。",
        "商品は発送しました。",
        "あいにく品切れでした。",
        "ご不便をおかけしました。",
        "追加しておきますね。",
        "よろしければ覚えておきましょうか？",
        "I checked the stock.",
        "Shall I add it?",
        "I didn't add it.",
    ],
)
def test_no_claim_in_both_languages(text: str) -> None:
    assert not claims(text), claims(text)


@pytest.mark.parametrize(
    "text",
    [
        "R-2007はお届けから30日を過ぎているため返金できません。",
        "お届けから1週間経ちました。",
        "30日が経過しました。",
        "お届けから30日経過しています。",
        "本日で31日目を迎えました。",
        "It has been 30 days since delivery.",
    ],
)
def test_time_passing_is_a_fact_not_a_claim_in_both_languages(text: str) -> None:
    assert not claims(text), claims(text)


@pytest.mark.parametrize(
    ("text", "verb"),
    [
        ("3日前に返金しました。", "返金"),
        ("30日以内に返金しました。", "返金"),
        ("30日間保存しました。", "保存"),
        ("10個をカートに追加しました。", "追加"),
        ("お届けから30日以内なので、返金しました。", "返金"),
        ("30日目の今日、返金が完了しました。", "返金"),
        ("I added 3 bottles to your cart.", "add"),
    ],
)
def test_an_act_beside_a_span_is_still_a_claim_in_both_languages(text: str, verb: str) -> None:
    assert [c.verb for c in claims(text)] == [verb]


def test_a_claim_names_its_object_in_japanese() -> None:
    assert object_tables("カートに追加しました", "追加") == {"cart"}
    assert "refund" in object_tables("返金しました", "返金")
    assert "order" in object_tables("お届け先を変更しました", "変更")
    assert "cart" in object_tables("added it to your cart", "add")


# ---- what a literal says ---------------------------------------------------------------------


def test_a_word_set_against_another_is_no_preference() -> None:
    assert says("TPE", "天然ゴムよりTPEが好み", contrast=True)
    assert not says("TPE", "TPEより天然ゴムが好み", contrast=True)
    assert not says("TPE", "TPEは使いません", contrast=True)
    assert says("TPE", "prefers TPE over rubber", contrast=True)
    assert not says("TPE", "prefers rubber over TPE", contrast=True)


# ---- sourced values --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "stated"),
    [
        ("送料は660円です。", [("660円", "money")]),
        ("返金は30日以内です。", [("30", "time")]),
        ("約2,000円です。", []),
        ("2万円以下の商品です。", []),
        ("2026年に発売されました。", []),
        ("送料はいくらですか？", []),
        ("Shipping is $6.95.", [("$6.95", "money")]),
        ("about $20", []),
        # a question states what its clauses before the asking one state
        ("現在15,900円ですが、よろしいですか？", [("15,900円", "money")]),
        ("7,700円を返金しますか？", []),
        # both ends of a range; a rough span; a span with no number
        ("3〜5営業日で反映されます。", [("3", "time"), ("5", "time")]),
        ("3日ほどで入荷します。", [("3", "time")]),
        ("数日で届きます。", [("数日", "time")]),
        ("数日分の水です。", []),
        ("TPE ヨガマット 6mm（4,950円）", [("6", "length"), ("4,950円", "money")]),
    ],
)
def test_stated_values_in_both_languages(text: str, stated: list[tuple[str, str]]) -> None:
    assert [(s.mention.text, s.kind) for s in stated_values(text)] == stated


@pytest.mark.parametrize(
    ("text", "size", "term", "rough"),
    [
        ("厚さ6mmのマットです。", 0.1, False, False),
        ("17インチのノートPCが入ります。", 2.54, False, False),
        ("2週間で届きました。", 7.0, False, False),
        ("30日以内に返金されます。", 1.0, True, False),
        ("90日保証です。", 1.0, True, False),
        ("1年間の保証が付いています。", 365.0, True, False),
        ("お届けから30日が経ちました。", 1.0, False, False),
        ("30日経過しました。", 1.0, False, False),
        ("30日後にお届けします。", 1.0, False, False),
        ("約1週間で届きます。", 7.0, False, True),
        ("3日程度かかります。", 1.0, False, True),
        ("A 90-day warranty.", 1.0, True, False),
    ],
)
def test_a_span_or_length_is_read_with_its_size_role_and_roughness_in_both_languages(
    text: str, size: float, term: bool, rough: bool
) -> None:
    [said] = stated_values(text)
    assert (round(said.size, 4), said.term, said.rough) == (size, term, rough)


# the Japanese store's yoga mat as search and details give it: the thickness in its name and in an
# attribute named in millimetres
MAT_JA = {"product_id": "J-1502", "name": "シズク TPE ヨガマット 6mm", "price": 4950,
          "attributes": {"material": "TPE", "thickness_mm": 6}}  # fmt: skip
BAG_JA = {"product_id": "J-1701", "name": "カゼミチ デイパック", "price": 8900,
          "description": "17インチのノートPCが入る背面ポケット付き。"}  # fmt: skip
ORDER_JA = {"order_id": "R-2010", "placed_on": "2026-07-03", "delivered_on": "2026-07-10"}
POLICY_JA = "返金はお届け日から30日目まで。返金は5〜7営業日でお支払い方法に反映されます。"


def _sourced_ja(text: str, user: str = "教えてください。") -> tuple[bool, str]:
    events: list[Any] = [call("get_product_details", product_id="J-1502")]
    for i, row in enumerate([{"product": MAT_JA}, {"product": BAG_JA}, {"order": ORDER_JA}]):
        events.append(ToolResultEvent(call_id=f"c-{i}", tool="get", status="ok", data=row))
    events.append(reply(text))
    ctx = GradeContext(run=make_run((user, events)), sources=("本日は2026-10-01です。", POLICY_JA))
    return sourced_values(True, ctx)


@pytest.mark.parametrize(
    "text",
    [
        "シズク TPE ヨガマット 6mm（4,950円）をカートに入れました。",
        "カートに入れました:\n- シズク TPE ヨガマット 6mm ¥4,950",
        "厚さは0.6cmです。",
        "厚さ六ミリのTPEマットです。",
        "17インチのノートPCが入ります。",
        # days between two dates of the order, or from one to today: how long ago
        "ご注文から7日でお届けしました。",
        "お届けから83日が経っています。",
        "ご注文は90日前です。",
        "約1週間でお届けしました。",
        # the policy's term and both ends of its range
        "返金はお届けから30日以内です。",
        "返金は5〜7営業日で反映されます。",
        "現在4,950円ですが、よろしいですか？",
    ],
)
def test_a_japanese_measure_a_source_gave_passes_sourced_values(text: str) -> None:
    passed, why = _sourced_ja(text)
    assert passed, why


@pytest.mark.parametrize(
    "text",
    [
        "厚さは8mmです。",
        "厚さ6cmのマットです。",
        "15インチのノートPCまで入ります。",
        # a term is backed by a term a source gave, never by the days between two dates
        "90日間の保証が付いています。",
        "90日保証です。",
        "10日以内に返金されます。",
        # a rough span needs a source near it; a span with no number too
        "3日ほどで入荷します。",
        "数日で届きます。",
        "返金は2〜7営業日で反映されます。",
        "現在5,500円ですが、よろしいですか？",
    ],
)
def test_a_japanese_measure_no_source_gave_fails_sourced_values(text: str) -> None:
    passed, why = _sourced_ja(text)
    assert not passed
    assert "no tool, instruction, policy or message of the person gave it" in why


# ---- facts about records ---------------------------------------------------------------------


def _records() -> Records:
    records = Records()
    records.add(
        [
            {"product_id": "J-1201", "name": "シズク 真空断熱ボトル 500ml", "price": 3280, "stock": 60},
            {"product_id": "J-1205", "name": "コモレビ ステンレスボトル 600ml", "price": 3980, "stock": 0},
            {"order_id": "JO-5001", "status": "shipped", "delivery_date": "2026-11-25",
             "updated_delivery_date": "2026-12-02"},
        ]
    )  # fmt: skip
    return records


@pytest.mark.parametrize(
    "text",
    [
        "真空断熱ボトルは3,980円です。",
        "真空断熱ボトルは在庫切れです。",
        "ステンレスボトルは在庫がございます。",
        "JO-5001は11月25日にお届け予定です。",
        "真空断熱ボトルをカートに入れました。現在の価格は3,980円です。",
    ],
)
def test_a_false_fact_about_a_record_in_japanese(text: str) -> None:
    assert problems_in(text, _records())


@pytest.mark.parametrize(
    "text",
    [
        "真空断熱ボトルは3,280円です。",
        "三千二百八十円の真空断熱ボトル",
        "ステンレスボトルは品切れです。",
        "ステンレスボトルは在庫がありません。",
        "JO-5001は十二月二日にお届け予定です。",
        "JO-5001は当初11月25日の予定でしたが、12月2日に変更されました。",
        "ステンレスボトルより700円安いです。",
    ],
)
def test_a_true_fact_about_a_record_in_japanese(text: str) -> None:
    assert not problems_in(text, _records())


def test_english_facts_about_records_are_read_as_before() -> None:
    records = Records()
    records.add(
        [{"product_id": "P-1", "name": "Coldkeep Classic Bottle", "price": 32.0, "stock": 0}]
    )
    assert problems_in("The Coldkeep Classic Bottle is in stock.", records)
    assert not problems_in("The Coldkeep Classic Bottle is sold out.", records)


# ---- asking and the scripted customer --------------------------------------------------------


def _customer() -> Customer:
    return Customer.model_validate(
        {
            "persona": {"tone": "丁寧"},
            "goal": "注文R-2003をキャンセルしたい。",
            "reveals": [
                {"name": "zip", "say": "郵便番号は150-0001です。", "topics": ["郵便番号"]},
                {"name": "email", "say": "hanako@example.jp です。", "topics": ["メールアドレス"]},
                {
                    "name": "yes",
                    "say": "はい、キャンセルしてください。",
                    "topics": ["キャンセル"],
                    "confirms": ["cancel_order"],
                },
            ],
        }
    )


@pytest.mark.parametrize(
    ("reply", "asked"),
    [
        ("本人確認のため、お名前と郵便番号を教えていただけますか？", ["zip"]),
        ("ご登録の郵便番号をお知らせください。", ["zip"]),
        ("郵便番号が一致しないため、メールアドレスを教えてください。", ["email"]),
        ("ご登録の郵便番号宛てにお送りします。", []),
        ("郵便番号は150-0001でよろしいですか？", []),
        ("注文R-2003をキャンセルしてもよろしいですか？", ["yes"]),
        ("キャンセルいたしましょうか？", ["yes"]),
        ("どの注文をキャンセルしますか？", []),
        ("キャンセルが完了しました。ほかに何かございますか？", []),
    ],
)
def test_what_a_japanese_reply_asks(reply: str, asked: list[str]) -> None:
    assert [r.name for r in _customer().asked(reply)] == asked


def test_the_scripted_customer_answers_a_japanese_agent() -> None:
    customer = _customer()
    turn = scripted_reply(customer, "郵便番号を教えてください。", 1)
    assert turn.say == "郵便番号は150-0001です。" and turn.answered == ("zip",)
    consent = scripted_reply(customer, "キャンセルしてよろしいですか？", 2)
    assert consent.confirms == frozenset({"cancel_order"})
    assert scripted_reply(customer, "キャンセルが完了しました。", 3).ended == "agent_done"
    assert customer.reveal("zip").values == ("150-0001",)
    assert customer.unknown_line().startswith("それは分かりません。")


@pytest.mark.parametrize(
    ("text", "yes"),
    [("はい、お願いします。", True), ("お願いします", True), ("いいえ、結構です。", False),
     ("ちょっと待ってください", False), ("Yes please.", True), ("No, wait.", False)],
)  # fmt: skip
def test_a_yes_in_both_languages(text: str, yes: bool) -> None:
    assert says_yes(text) is yes


def test_closing_offers_ask_nothing_in_both_languages() -> None:
    assert not asking_sentences("返金しました。ほかに何かございますか？")
    assert not asking_sentences("Done. Anything else I can help with?")
    assert asking_sentences("郵便番号を教えてください。")


# ---- the search and the lint -----------------------------------------------------------------


def test_japanese_search_words_are_character_pairs() -> None:
    assert "シュ" in search_tokens("ランニングシューズ")
    assert set(search_tokens("シューズ")) <= set(search_tokens("トレイルランニングシューズ"))
    assert search_tokens("の") == []


@pytest.mark.parametrize(
    ("needle", "typed"),
    [("在庫切れ", True), ("12,800円", True), ("十二月二日", True), ("J-1201", False), ("シズク", False),
     ("out of stock", True), ("$32", True), ("CH-103", False)],
)  # fmt: skip
def test_the_lint_sends_a_literal_fact_to_reply_states_in_both_languages(
    needle: str, typed: bool
) -> None:
    assert bool(literal_reply_problem("reply_includes", needle)) is typed


def test_a_missing_amount_is_named_in_the_store_s_currency() -> None:
    from commerce_evals.cases.key_values import Fact
    from commerce_evals.grading.graders import GradeContext
    from commerce_evals.grading.reply_facts import reply_states
    from tests.helpers import make_run, reply

    run = make_run(("合計は？", [reply("合計は3,280円です。")]))
    passed, why = reply_states([Fact(money=6560, role=["合計"])], GradeContext(run=run))
    assert not passed and "6,560円" in why and "$" not in why.split("reply:")[0], why
