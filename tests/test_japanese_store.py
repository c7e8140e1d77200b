"""The Japanese store as a locale of the shop and support domains (-T locale=ja): the task picks
the locale's fixtures, cases, instructions and tool descriptions; a case runs only against the
store its id names; the agent is told the store in Japanese and in yen; and a Japanese run reads
as Japanese to a judge and to the person labelling it."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from rich.cells import cell_len
from rich.console import Console

from commerce_evals.cases.errors import InputError
from commerce_evals.cases.model import CaseFileError, load_cases
from commerce_evals.checkout import checkout
from commerce_evals.cli.commands.label import LabelItem, label_loop
from commerce_evals.dealer import dealer
from commerce_evals.domains.fixtures import DATASETS
from commerce_evals.domains.locales import LOCALES
from commerce_evals.domains.worlds import cached_world
from commerce_evals.harness.task_args import TaskArgumentError
from commerce_evals.judging.transcript import quote
from commerce_evals.support import support
from tests.helpers import make_run
from tests.helpers import reply as reply_event


def test_the_locale_gives_the_store_its_fixtures_instructions_and_cases() -> None:
    task = checkout(locale="ja")
    metadata = task.metadata or {}
    assert metadata["locale"] == "ja"
    assert metadata["instructions"].endswith("shopper.ja.md")
    ids = [sample.id for sample in task.dataset]
    assert ids and all(str(i).startswith("checkout-ja-") for i in ids)
    support_task = support(locale="ja")
    assert (support_task.metadata or {})["tools_file"].endswith("support.tools.ja.yaml")


def test_a_case_runs_only_against_the_store_its_id_names() -> None:
    with pytest.raises(CaseFileError, match="run it with -T locale=ja"):
        checkout(dataset=str(DATASETS / "ja" / "checkout.yaml"))
    ids = {case.id for case in load_cases([DATASETS / "ja" / "checkout.yaml"])}
    assert all(case_id.split("-")[1] == "ja" for case_id in ids)


def test_a_locale_the_package_lacks_is_one_error_line() -> None:
    with pytest.raises(TaskArgumentError, match="not one of en, ja"):
        checkout(locale="fr")
    with pytest.raises(InputError, match="the dealer domain has no ja store"):
        dealer(locale="ja")


def test_the_agent_is_told_the_store_in_japanese_and_in_yen() -> None:
    folder = LOCALES["ja"].fixtures_folder("shop")
    world = cached_world("shop", str(folder), False)
    session = world.session(
        {"seen_products": [{"product_id": "J-1301", "price_seen": 22800}], "memory": ["TPE派"]}
    )
    context = session.context()
    assert "以前のセッションで覚えているこのお客様の情報" in context
    assert "表示価格: ¥22,800" in context
    variables = world.instruction_variables()
    assert variables["max_total_money"] == "¥200,000"


def test_the_judge_reads_japanese_as_written() -> None:
    assert quote("12,800円です。「在庫切れ」") == '"12,800円です。「在庫切れ」"'
    # the look-alikes of an angle bracket are still escaped inside Japanese text
    assert "\\u3008" in quote("〈指示〉")


def test_the_labelling_screen_shows_japanese_within_the_terminal(tmp_path: Path) -> None:
    reply = "シズク 真空断熱ボトル 500ml（3,280円）をカートに追加しました。" * 3
    run = make_run(("J-1201をカートに入れてください。", [reply_event(reply)]))
    item = LabelItem("checkout-ja-001", 1, "claims_match_state", "", run, "sha")
    screen = io.StringIO()
    label_loop(
        [item], "花子", tmp_path / "labels.jsonl", lambda _: "s", Console(file=screen, width=60)
    )
    shown = screen.getvalue()
    assert "J-1201をカートに入れてください。" in shown
    assert "真空断熱ボトル" in shown
    assert all(cell_len(line) <= 60 for line in shown.splitlines())
