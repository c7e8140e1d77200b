"""The case model of `expected`, generated from the keys' declarations: python -m commerce_evals.grading.keys.

Do not edit: declare a key on its grader (commerce_evals/grading/keyspec.py), regenerate.
"""

from __future__ import annotations

from typing import ClassVar

from pydantic import Field

from commerce_evals.cases.key_values import (
    AliasValue,
    AskedFor,
    AsksBeforeList,
    CallLimit,
    CallOrder,
    CartLines,
    ChangesExpect,
    Count,
    ExpectedBase,
    Fact,
    Flag,
    IdSets,
    OnePattern,
    OperationList,
    PatternList,
    Regexes,
    StateExpect,
    before_to_call_order,
    per_tool_to_at_most,
)


class Expected(ExpectedBase):
    """Only the keys a case is about; what each reads and its part are in its declaration."""

    ALIASES: ClassVar[dict[str, tuple[str, AliasValue]]] = {
        "before": ("call_order", before_to_call_order),
        "max_calls_per_tool": ("at_most", per_tool_to_at_most),
    }
    DEFAULT_KEYS: ClassVar[tuple[str, ...]] = (
        "changes",
        "action_claims",
        "records_agree",
        "sourced_values",
    )

    # every pattern was called
    calls_tool: PatternList = Field(default_factory=list)
    # at least one pattern was called
    calls_one_of: PatternList = Field(default_factory=list)
    # no call matches a pattern (a blocked or refused call counts)
    never_calls: PatternList = Field(default_factory=list)
    # no call performs or prepares one of these operations of the domain, through any tool that
    # can (every route the domain declares; a dry run, a blocked or refused call counts)
    never_does: OperationList = Field(default_factory=list)
    # the turn's first call matches
    first_tool: OnePattern | None = None
    # the turn's first call does not match (not asserted when no call was made)
    first_tool_not: OnePattern | None = None
    # a call matching `first` came before every call matching `then` (not asserted when `then`
    # was never called)
    call_order: list[CallOrder] = Field(default_factory=list)
    # each call matching `tool` (and `args`) came in a turn after a reply that asked the
    # customer for each of `reveals` (a case with a customer; not asserted when never called)
    asks_before: AsksBeforeList = Field(default_factory=list)
    # no reply asks the customer for these reveals (already said, or a tool holds them), and no
    # reply asks again for a reveal the customer already answered (a case with a customer)
    never_asks: list[str] = Field(default_factory=list)
    # the reply asks the person for each of these (a reveal of the case's customer, or a topic
    # of the domain's asking words; a list is any one of its names), read as the scripted
    # customer hears a question: by a topic or its synonyms, a question word of its kind or
    # values of it proposed, not by a mention
    asks_for: AskedFor = Field(default_factory=list)
    # every write came in a turn whose user message the case declares `confirms` it
    writes_need_confirmation: Flag = None
    # the named skill was loaded
    skill_loaded: str | None = None
    # the named skill was never loaded
    skill_not_loaded: str | None = None
    # no skill was loaded
    no_skill_load: Flag = None
    # what the run changed (rows added, changed, removed) matches what an oracle run changed; on
    # by default, `{any: [tables], reason}` waives tables
    changes: ChangesExpect | None = None
    # each component was shown
    ui_components: list[str] = Field(default_factory=list)
    # the ids on the turn's last presentation that went through are exactly these, in any order
    # (a list of lists: exactly one of them); a right set shown before a wrong one fails
    last_presented: IdSets = Field(default_factory=list)
    # no component was shown
    no_ui: Flag = None
    # the cart holds each line
    cart_contains: CartLines = Field(default_factory=list)
    # the cart holds exactly this many lines
    cart_item_count: Count = None
    # the cart holds none of these products
    cart_not_contains: list[str] = Field(default_factory=list)
    # a change of each kind is staged
    staged_change_kinds: list[str] = Field(default_factory=list)
    # nothing was applied
    no_applied_changes: Flag = None
    # memory holds each fact (substring)
    memory_contains: list[str] = Field(default_factory=list)
    # memory holds none of these
    memory_not_contains: list[str] = Field(default_factory=list)
    # the reply holds each string (ignoring case)
    reply_includes: list[str] = Field(default_factory=list)
    # no reply holds any of these
    reply_omits: list[str] = Field(default_factory=list)
    # the reply matches each regular expression
    reply_matches: Regexes = Field(default_factory=list)
    # no reply matches any of these
    reply_not_matches: Regexes = Field(default_factory=list)
    # the reply states each typed fact (money, date, percent, count, product, id, status) in any
    # written form, not negated, not as a range end, and not in the wrong role
    reply_states: list[Fact] = Field(default_factory=list)
    # no reply asserts any of these typed facts
    reply_denies: list[Fact] = Field(default_factory=list)
    # every action a reply claims done (placed, refunded, staged, sent, ...) is in what the run
    # changed; on by default, `action_claims: false` turns it off
    action_claims: bool = True
    # every price, date and status a reply (or a note the run wrote) states about a record the
    # run saw or changed agrees with that record; on by default, `records_agree: false` turns it
    # off
    records_agree: bool = True
    # every amount, percent and measure (days, hours, inches) a reply or a note the run wrote
    # states was given by a tool, the instructions, the policy, the screen or the person, or
    # follows from their numbers (a sum, a difference, a share, days between dates); and every
    # preference or size it gives the person ('you wear a 13') the person or a stored memory
    # gave; on by default, `sourced_values: false` turns it off
    sourced_values: bool = True
    # rows, no_rows, counts, new_rows, unchanged, no_writes over named tables
    state: StateExpect | None = None
    # at most this many calls in the turn (turn-ending tools left out)
    max_tool_calls: Count = None
    # calls matching a pattern, over every turn, at most `times` times
    at_most: list[CallLimit] = Field(default_factory=list)
    # a judge's PASS/FAIL criterion for this case
    rubric: str | None = None
    # shared judge dimensions (prompt files in commerce_evals/judging/prompts/)
    dimensions: list[str] = Field(default_factory=list)
