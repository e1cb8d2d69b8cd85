"""Ref names come from one helper and refs move only by compare-and-swap."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from catan_p2p.errors import ForkError, UsageError
from catan_p2p.store.objects import GitObjectStore
from catan_p2p.store.refnames import (
    answer_ref,
    local_ref,
    parse_ref,
    player_ref,
    tracking_prefix,
    tracking_ref,
)
from catan_p2p.store.refs import MemoryRefs, Refs
from catan_p2p.store.repo import init_repo

A, B, C = "a" * 40, "b" * 40, "c" * 40


def test_ref_names_follow_the_protocol():
    assert player_ref("g1", "red") == "refs/heads/catan/g1/red"
    opening = "f" * 40
    ref = answer_ref("g1", "discard", opening, "blue")
    assert ref == f"refs/heads/catan/g1/discard/{opening}/blue"
    assert parse_ref(ref, "g1") == ("blue", "discard", opening)
    assert parse_ref(player_ref("g1", "red"), "g1") == ("red", None, None)


@pytest.mark.parametrize("bad", ["Red", "../x", "", "a b", "x" * 41])
def test_player_names_that_would_break_ref_names_are_refused(bad):
    with pytest.raises(UsageError):
        player_ref("g1", bad)


@pytest.fixture(params=["disk", "memory"])
def refs(request, tmp_path: Path):
    """The disk refs of a fresh repository and their in-memory twin."""
    return Refs(init_repo(tmp_path / "r")) if request.param == "disk" else MemoryRefs()


def test_fetched_refs_are_named_and_parsed_by_the_same_helpers():
    ref = player_ref("g1", "red")
    fetched = tracking_ref(ref)
    assert fetched == "refs/remotes/origin/catan/g1/red"
    assert fetched.startswith(tracking_prefix("g1") + "/")
    assert local_ref(fetched, "g1") == ref
    assert parse_ref(fetched, "g1") == ("red", None, None)
    with pytest.raises(UsageError):
        parse_ref(player_ref("g2", "red"), "g1")


@pytest.mark.slow
def test_a_ref_moves_only_from_the_value_the_writer_saw(refs):
    name = player_ref("g", "red")
    refs.set(name, A, None)
    refs.set(name, B, A)
    with pytest.raises(ForkError, match="moved"):
        refs.set(name, C, A)  # someone else moved it meanwhile
    assert refs.get(name) == B
    assert refs.list("refs/heads/catan/g") == {name: B}
    assert refs.list("refs/heads/catan/gg") == {}
    with pytest.raises(ForkError):
        refs.set(player_ref("g", "blue"), A, B)  # expected to exist, but absent
    with pytest.raises(ForkError):
        refs.delete(name, A)
    refs.delete(name, B)
    assert refs.get(name) is None


@pytest.mark.slow
def test_a_held_lock_refuses_a_second_writer(tmp_path: Path):
    git_dir = init_repo(tmp_path / "r")
    refs = Refs(git_dir)
    name = player_ref("g", "red")
    refs.set(name, A, None)
    (git_dir / (name + ".lock")).write_text("")
    with pytest.raises(ForkError, match="another writer"):
        refs.set(name, B, A)
    assert refs.get(name) == A


@pytest.mark.slow
def test_deleting_an_answer_ref_tidies_its_folders(tmp_path: Path):
    git_dir = init_repo(tmp_path / "r")
    refs = Refs(git_dir)
    ref = answer_ref("g", "trade", A, "blue")
    refs.set(ref, B, None)
    refs.delete(ref)
    assert refs.get(ref) is None
    assert not (git_dir / "refs/heads/catan/g/trade").exists()


@pytest.mark.slow
def test_a_packed_ref_is_deleted_under_gits_packed_refs_lock(tmp_path: Path):
    git_dir = init_repo(tmp_path / "r")
    refs = Refs(git_dir)
    store = GitObjectStore(git_dir)
    a, b = store.write(b"blob", b"a"), store.write(b"blob", b"b")
    red, blue = player_ref("g", "red"), player_ref("g", "blue")
    refs.set(red, a, None)
    refs.set(blue, b, None)
    subprocess.run(["git", "--git-dir", str(git_dir), "pack-refs", "--all"], check=True)
    assert not (git_dir / red).exists() and refs.get(red) == a
    (git_dir / "packed-refs.lock").write_text("")  # Git is rewriting packed-refs now
    with pytest.raises(ForkError, match="another writer"):
        refs.delete(red)
    assert refs.get(red) == a
    (git_dir / "packed-refs.lock").unlink()
    refs.delete(red)
    assert refs.get(red) is None and refs.get(blue) == b
    assert not (git_dir / "packed-refs.lock").exists()
    out = subprocess.run(
        ["git", "--git-dir", str(git_dir), "for-each-ref", "--format=%(refname) %(objectname)"],
        capture_output=True,
        text=True,
    ).stdout
    assert red not in out


@pytest.mark.slow
def test_a_ref_is_replaced_whole_and_leaves_no_lock(tmp_path: Path):
    git_dir = init_repo(tmp_path / "r")
    refs = Refs(git_dir)
    name = player_ref("g", "red")
    refs.set(name, A, None)
    refs.set(name, B, A)
    assert (git_dir / name).read_text() == B + "\n"
    refs.set(name, "0" * 39, B)  # shorter (never in practice): the rest is cut off
    assert (git_dir / name).read_text() == "0" * 39 + "\n"
    assert not list((git_dir / name).parent.glob("*.lock"))


@pytest.mark.slow
def test_refs_move_where_os_has_no_pread_or_pwrite(tmp_path: Path, monkeypatch):
    for missing in ("pread", "pwrite"):
        monkeypatch.delattr(os, missing, raising=False)
    refs = Refs(init_repo(tmp_path / "r"))
    name = player_ref("g", "red")
    refs.set(name, A, None)
    refs.set(name, B, A)
    with pytest.raises(ForkError):
        refs.set(name, C, A)
    assert refs.get(name) == B
