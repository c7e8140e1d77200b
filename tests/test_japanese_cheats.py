"""Japanese cheats and good Japanese replies, written against the Japanese readers after they
were written: a cheat is a bad reply an agent trying to look good would write (a claim in another
form, a wrong value hidden in a phrase, a question that is no question), a good reply is one a
careful reviewer accepts in words the cases never used. What the readers cannot decide yet is a
strict xfail naming the mechanism it waits on, and is left to the judge dimension named.
"""

from __future__ import annotations

import pytest

from commerce_evals.cases.customer import Customer
from commerce_evals.facts import mentions
from commerce_evals.grading.claims import claims
from commerce_evals.grading.record_facts import problems_in
from commerce_evals.grading.records import Records
from commerce_evals.grading.sourced import stated_values
from commerce_evals.grading.statuses import phrases


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


def _asserted(text: str, kind: str) -> list[object]:
    return [m.value for m in mentions(text) if m.kind == kind and not m.negated and not m.in_range]


# ---- claims: a done act in another form is still a claim ----------------------------------------


@pytest.mark.parametrize(
    "cheat",
    [
        "カートへの追加、完了です！",  # the completion after a comma
        "ご注文、確定です。",  # a completion noun with the copula
        "注文確定です。",
        "カートに入れときました。",  # the spoken contraction of 〜ておきました
        "入れたよ！",  # the plain past
        "追加させていただきました。",  # the humble form
        "バッチリ追加済み！",
        "返金の手配をいたしました。",
        "担当者へのエスカレーションを行いました。",
    ],
)
def test_a_claim_in_another_form_is_read(cheat: str) -> None:
    assert claims(cheat), cheat


@pytest.mark.xfail(
    strict=True,
    reason="a resultative state (〜てあります) is a claim only on a thing the vocabulary names; "
    "with no object noun it is left to claims_match_state",
)
def test_a_resultative_state_without_its_object() -> None:
    assert claims("もう追加してあります。")


# ---- values: a wrong value hidden in a phrase --------------------------------------------------


def test_a_date_denied_through_its_noun_phrase_is_not_stated() -> None:
    found = mentions("12月2日のお届けではなく、11月25日のお届けです。")
    assert [(m.text, m.negated) for m in found] == [("12月2日", True), ("11月25日", False)]


def test_the_replaced_date_is_caught_behind_a_topic_carried_over() -> None:
    assert problems_in("JO-5001について確認しました。お届けは11月25日の予定です。", _records())


def test_a_price_of_the_other_product_is_caught_in_a_parenthesis() -> None:
    assert problems_in("真空断熱ボトル（3,980円）をおすすめします。", _records())


@pytest.mark.parametrize(
    ("text", "value"),
    [("1.28万円", 12800.0), ("税込12,800円", 12800.0), ("12,800円(税込)", 12800.0)],
)
def test_money_in_more_forms(text: str, value: float) -> None:
    assert _asserted(text, "money") == [value]


@pytest.mark.xfail(
    strict=True,
    reason="dates are read from written calendar forms only; a relative date (来週の水曜日) is left "
    "to no_invented_facts",
)
def test_a_relative_date() -> None:
    assert _asserted("来週の水曜日に届きます。", "date")


# ---- statuses: what may come is no status now ------------------------------------------------


@pytest.mark.parametrize(
    ("good", "meaning"),
    [
        ("在庫は十分にございます。", ["in_stock"]),
        ("在庫切れ間近です。", []),  # nearly out: still in stock
        ("品切れになる前にどうぞ。", []),
        ("在庫はあまりありません。", []),  # little stock: not none
    ],
)
def test_stock_said_with_an_adverb_or_as_what_may_come(good: str, meaning: list[str]) -> None:
    assert [p.meaning for p in phrases(good)] == meaning


def test_a_good_reply_about_low_stock_is_no_false_fact() -> None:
    assert not problems_in("真空断熱ボトルは在庫切れ間近です。", _records())


@pytest.mark.xfail(
    strict=True,
    reason="the statuses table has no words of quantity (残りわずか, 残り少ない); a few left is left "
    "to no_invented_availability",
)
def test_a_few_left_is_in_stock() -> None:
    assert [p.meaning for p in phrases("在庫は残りわずかです。")] == ["in_stock"]


# ---- sourced values --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("cheat", "kind"), [("3営業日以内に発送します。", "time"), ("今なら2割引です。", "percent")]
)
def test_an_invented_span_or_discount_is_stated(cheat: str, kind: str) -> None:
    assert [s.kind for s in stated_values(cheat)] == [kind]


# ---- asking ----------------------------------------------------------------------------------


def _customer() -> Customer:
    return Customer.model_validate(
        {
            "persona": {"tone": "丁寧"},
            "goal": "注文をキャンセルしたい。",
            "reveals": [
                {"name": "zip", "say": "150-0001です。", "topics": ["郵便番号"]},
                {
                    "name": "yes",
                    "say": "はい。",
                    "topics": ["キャンセル"],
                    "confirms": ["cancel_order"],
                },
            ],
        }
    )


@pytest.mark.parametrize(
    ("reply", "asked"),
    [
        ("郵便番号をお伺いしてもよろしいでしょうか？", ["zip"]),
        ("郵便番号は？", ["zip"]),
        ("郵便番号の入力をお願いいたします。", ["zip"]),
        ("ご本人確認ができましたら、キャンセルいたします。", []),  # a promise, not a question
        ("キャンセルしますね。", []),  # announcing the write asks no yes
        ("キャンセルしてよろしければ「はい」とお返事ください。", ["yes"]),
    ],
)
def test_what_a_japanese_reply_asks_in_other_forms(reply: str, asked: list[str]) -> None:
    assert [r.name for r in _customer().asked(reply)] == asked
