"""The table of concurrent-step kinds (``rules.steps.STEPS``) is the one place a kind is
named: ref names, plans, merges, messages, the verifier and the hook derive from it."""

from __future__ import annotations

import ast
import importlib.util
from pathlib import Path
from types import SimpleNamespace

import pytest

from catan_p2p.errors import UsageError
from catan_p2p.protocol import concurrent
from catan_p2p.protocol.message import MERGE_WHAT, merge_message
from catan_p2p.rules.actions import ClaimSeat, EndTurn
from catan_p2p.rules.state import Phase
from catan_p2p.rules.steps import ANSWERS, BY_NAME, STEPS, open_step
from catan_p2p.store.refnames import KINDS, answer_ref, answers_prefix, parse_ref, well_formed

ROOT = Path(__file__).resolve().parents[2]
OPENING = "a" * 40

#: The modules that once each held their own list of kinds; none names a kind now.
DERIVED = (
    "catan_p2p/store/refs.py",
    "catan_p2p/protocol/concurrent.py",
    "catan_p2p/protocol/message.py",
    "catan_p2p/protocol/verify.py",
    "catan_p2p/net/hook.py",
    "catan_p2p/protocol/audit.py",
    "catan_p2p/protocol/refpolicy.py",
    "catan_p2p/replica/answers.py",
    "catan_p2p/replica/seats.py",
)


def test_every_kind_is_one_entry_with_its_own_name_answer_and_opening():
    names = [s.name for s in STEPS]
    assert len(set(names)) == len(names)
    assert len(set(ANSWERS)) == len(ANSWERS) == len(STEPS)
    phases = [s.phase for s in STEPS]
    assert len(set(phases)) == len(phases), "two kinds opened by one phase"
    assert [s for s in STEPS if s.phase is None] == [BY_NAME["seat"]]
    for s in STEPS:
        assert s.merged and (s.incomplete or not s.merged_when_owed_in)
        assert not (s.closed_by and s.merged_when_owed_in), "closed one way only"


@pytest.mark.parametrize("kind", STEPS, ids=lambda s: s.name)
def test_the_ref_names_and_the_merge_words_come_from_the_table(kind):
    assert kind.name in KINDS
    ref = answer_ref("g", kind.name, OPENING, "red")
    assert ref == f"{answers_prefix('g', kind.name, OPENING)}/red"
    assert parse_ref(ref, "g") == ("red", kind.name, OPENING)
    assert well_formed(ref, "g")
    assert concurrent.ANSWER_KINDS[kind.name] is kind.answer
    assert MERGE_WHAT[kind.name] == kind.merged
    assert merge_message("red", kind.name, ["blue"], "g").startswith(
        f"Red: merge {kind.merged} of Blue\n"
    )


def test_a_kind_not_in_the_table_has_no_ref():
    with pytest.raises(UsageError, match="must be one of seat, discard, trade"):
        answers_prefix("g", "bribe", OPENING)
    assert not well_formed(f"refs/heads/catan/g/bribe/{OPENING}/red", "g")
    assert set(KINDS) == set(BY_NAME)


def test_the_open_step_is_read_from_the_phase():
    for kind in STEPS:
        if kind.phase is not None:
            state = SimpleNamespace(lobby_open=False, phase=kind.phase)  # what the table reads
            assert open_step(state) is kind and kind.is_open(state)
            assert concurrent.open_kind(state) == kind.name
    assert open_step(SimpleNamespace(lobby_open=False, phase=Phase.MAIN)) is None
    lobby = SimpleNamespace(lobby_open=True, phase=Phase.SETUP_SETTLEMENT)
    assert open_step(lobby) is BY_NAME["seat"]
    assert concurrent.is_answer(ClaimSeat("red", "k", "d", "e", "p"))
    assert not concurrent.is_answer(EndTurn("red"))


def _strings(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    return {
        n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)
    }


@pytest.mark.parametrize("module", DERIVED)
def test_no_module_of_the_protocol_names_a_kind_itself(module):
    named = _strings(ROOT / module) & set(BY_NAME)
    assert not named, f"{module} names {sorted(named)}: read them from rules.steps.STEPS"


def test_the_vectors_hold_an_answer_and_a_merge_of_every_kind():
    spec = importlib.util.spec_from_file_location("vectors_tool", ROOT / "tools" / "vectors.py")
    assert spec and spec.loader
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    for kind in STEPS:
        assert f"merge:{kind.name}" in tool.REQUIRED
        assert any(r.startswith(f"answer:{kind.answer.kind}") for r in tool.REQUIRED)
