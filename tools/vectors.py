#!/usr/bin/env python3
"""Write or check the protocol test vectors in ``state_schema/vectors/vectors.json``.

Three games written with fixed seat keys and a fixed clock, played by this code's own
peers (``session.git.GitSession`` hot-seat, every seat local; ``tools/vector_games.py``
plays them):

- ``play``: three seats, a whole game to its last ``reveal_deck``: every action type,
  every kind of merge but the closing one, rolls, a seven with discards, steals with their
  answers and merges, a monopoly that waits for a robbed player's ``show_steal``, shuffles,
  draws, cards played, a win shown from hidden victory point cards.
- ``abandon``: two seats with a timeout: an ``abandon``, the absent player's late move and
  the closing merge that joins both lines; and one chat line.
- ``extension``: six seats (the 5-6 player extension, 3 points to win): a special building
  phase in which a seat builds, with the fresh-beacon roll after it, and a game that ends
  with development cards face down and steals pending, so that its last ``reveal_deck``
  shows the cards and moves the stolen cards.

``vectors.json`` holds the inputs (board, genesis values, each seat's private key and the
secrets HKDF derives from it), every commit of the games (raw bytes, id, tree id, commit
time, the ref it was written on) and, for the commits named ``vector`` (the first of every
kind in each game, every commit of the extension game's special building turn, and their
parents), every tree in full (``trees``: path -> blob id, ``blobs``: id -> text).

    python tools/vectors.py          # rewrite the vectors
    python tools/vectors.py --check  # exit 1 unless the code writes exactly these vectors
                                     # and every vector rebuilds from its inputs alone

The rebuild (``rebuild``) is the part a second implementation would write: for each vector
commit it decodes the parent's tree, recomputes every secret field from the seat's inputs
with the functions PROTOCOL.md names, applies the action, serialises the files, and writes
and signs the commit, comparing every byte; each step names the section it follows.
"""

from __future__ import annotations

import hashlib
import json
import sys
import tempfile
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # `python tools/vectors.py` from anywhere
    sys.path.insert(0, str(ROOT))

from catan_p2p.protocol import message as proto  # noqa: E402
from catan_p2p.protocol.concurrent import as_merged  # noqa: E402
from catan_p2p.protocol.genesis import initial_state  # noqa: E402
from catan_p2p.protocol.signing import SeatKey  # noqa: E402
from catan_p2p.rules import chance as chance_mod  # noqa: E402
from catan_p2p.rules.actions import (  # noqa: E402
    Action,
    AnswerTrade,
    BuildRoad,
    BuildSettlement,
    ClaimSeat,
    ClaimVictory,
    ConfirmTrade,
    EndSpecialBuild,
    EndTurn,
    GiveCard,
    MoveRobber,
    OfferTrade,
    RevealDeck,
    RevealDice,
    RollDice,
    ShowsSteals,
    ShowSteal,
)
from catan_p2p.rules.board import Board  # noqa: E402
from catan_p2p.rules.engine import dice_step_due  # noqa: E402
from catan_p2p.rules.steps import ANSWERS, STEPS  # noqa: E402
from catan_p2p.store import codec, reading  # noqa: E402
from catan_p2p.store.formats import (  # noqa: E402
    Commit,
    MemoryObjectStore,
    commit_data,
    parse_tree,
    player_email,
    tree_data,
)
from catan_p2p.store.repo import GameRepo, Repository, init_repo  # noqa: E402
from catan_p2p.trust import poker as cards_deck  # noqa: E402
from catan_p2p.trust.engine import step  # noqa: E402
from catan_p2p.trust.steals import steal_context  # noqa: E402
from tools.vector_games import (  # noqa: E402
    ABANDON,
    EMPTY_TREE,
    EXTENSION,
    KEYS,
    PLAY,
    PLAY_SEED,
    WHEN,
    Clock,
    abandon_game,
    extension_game,
    fixed_clock,
    play_game,
)

OUT = ROOT / "state_schema" / "vectors" / "vectors.json"
# --- what kind of commit a commit is --------------------------------------------------------


def kind_of(repo: Repository, oid: str) -> str:
    """``genesis``, ``merge:<kind>``, ``answer:<type>``, ``chat`` or ``action:<type>``
    (``answer_trade`` and ``move_robber`` split by what they do)."""
    c = repo.commit(oid)
    if c.tree == EMPTY_TREE:
        return "chat"
    if not c.parents:
        return "genesis"
    if len(c.parents) > 1:
        return "merge:" + proto.parse_merge(c).kind
    action = proto.parse_action(c)
    kind = action.kind
    if isinstance(action, AnswerTrade):
        kind += ":counter" if action.is_counter else ":accept" if action.accept else ":decline"
    if isinstance(action, OfferTrade) and action.to is not None:
        kind += ":to"
    if isinstance(action, ConfirmTrade):
        answers = _json(repo, c.parents[0], "turn.json")["trade"]["answers"]
        kind += ":counter" if answers[action.partner] == "counter" else ""
    if isinstance(action, MoveRobber):
        kind += ":rob" if action.victim else ":nobody"
    if isinstance(action, RollDice) and action.dice is None:
        kind += ":decided"  # its dice come in the next commit's reveal_dice
    elif isinstance(action, (RollDice, RevealDice)):
        kind += ":seven" if sum(action.dice or (0, 0)) == 7 else ":number"
    if isinstance(action, RollDice):
        kind += ":shares" if action.shares else ""
    if isinstance(action, BuildSettlement) and action.deck:
        kind += ":shuffle"
    elif isinstance(action, (BuildSettlement, BuildRoad)) and _setup(repo, c.parents[0]):
        kind += ":setup"
    if isinstance(action, ShowsSteals) and action.steals:
        kind += ":steals"
    turn_before, turn_after = _json(repo, c.parents[0], "turn.json"), _json(repo, oid, "turn.json")
    if isinstance(action, RollDice) and turn_before.get("fresh_beacon"):
        kind += ":fresh_beacon"  # its roller built in the special building phase before it
    if isinstance(action, EndTurn) and turn_after["phase"] == "special_build":
        kind += ":special_build"  # it opens the special building phase (5-6 players)
    elif turn_before["phase"] == "special_build" and not isinstance(action, EndSpecialBuild):
        kind += ":special_build"  # a build or a purchase in the phase
    if isinstance(action, RevealDeck) and _last_reveal(repo, oid):
        kind += ":last"  # every secret is in: the cards face down and the steals are read
    before, after = _json(repo, c.parents[0], "awards.json"), _json(repo, oid, "awards.json")
    for award in ("longest_road", "largest_army"):  # the moment an award changes hands
        if before[award] != after[award]:
            kind += f":{award}"
    role = "answer" if c.parents and _is_answer(action) else "action"
    return f"{role}:{kind}"


def _json(repo: Repository, oid: str, path: str) -> dict:
    """One state file of a commit's tree, decoded."""
    tree = repo.commit(oid).tree
    *folders, name = path.split("/")
    for folder in folders:
        tree = parse_tree(repo.store.read(tree)[1])[folder][1]
    return json.loads(repo.store.read(parse_tree(repo.store.read(tree)[1])[name][1])[1])


def _last_reveal(repo: Repository, oid: str) -> bool:
    """True when the commit ``oid`` leaves every seat's deck secret revealed."""
    game = _json(repo, oid, "game.json")
    return all("secret" in _json(repo, oid, f"deck/{p}.json") for p in game["players"])


def _setup(repo: Repository, oid: str) -> bool:
    """True when the commit ``oid`` leaves the game in its set-up rounds."""
    return _json(repo, oid, "turn.json")["phase"].startswith("setup")


def _is_answer(action: Action) -> bool:
    return isinstance(action, ANSWERS)


#: Every kind the vectors must hold at least once.
REQUIRED = (
    "genesis",
    "answer:claim_seat",
    "merge:seat",
    "action:build_settlement:shuffle",
    "action:build_settlement:setup",
    "action:build_road:setup",
    "action:build_settlement",
    "action:build_road",
    "action:build_road:longest_road",
    "action:play_knight:largest_army",
    "action:build_city",
    "action:roll_dice:number",
    "action:roll_dice:number:shares",
    "action:roll_dice:seven",
    "action:roll_dice:decided",
    "action:reveal_dice:number",
    "answer:discard",
    "merge:discard",
    "action:move_robber:rob",
    "answer:give_card",
    "merge:steal",
    "action:end_turn",
    "action:buy_dev_card",
    "action:play_knight",
    "action:play_road_building",
    "action:end_road_building",
    "action:play_year_of_plenty",
    "action:play_monopoly",
    "answer:show_steal",
    "merge:monopoly",
    "action:maritime_trade",
    "action:offer_trade",
    "action:offer_trade:to",
    "answer:answer_trade:accept",
    "answer:answer_trade:decline",
    "answer:answer_trade:counter",
    "merge:trade",
    "action:confirm_trade",
    "action:confirm_trade:counter",
    "action:cancel_trade",
    "action:claim_victory",
    "action:reveal_deck",
    "action:reveal_deck:last",
    "action:abandon",
    "merge:abandon",
    "chat",
    "action:end_turn:special_build",
    "action:buy_dev_card:special_build",
    "action:end_special_build",
    "action:roll_dice:decided:fresh_beacon",
)


# --- what the vectors hold --------------------------------------------------------------------


def _ref_of(repo: Repository, game: str, oid: str, kind: str) -> str:
    c = repo.commit(oid)
    if kind == "chat":
        return f"refs/catan-chat/{game}/{c.author}"
    if kind.startswith("answer:"):
        step_kind = {s.answer.kind: s.name for s in STEPS}[kind.split(":")[1]]
        return f"refs/heads/catan/{game}/{step_kind}/{c.parents[0]}/{c.author}"
    return f"refs/heads/catan/{game}/{c.author}"


def _game_commits(repo: Repository, game: str) -> list[str]:
    """Every commit of ``game`` (its logs, the answers merged into them, its chat), oldest
    first (the clock gives every commit its own second)."""
    heads = [
        oid
        for ref, oid in repo.refs.list("refs").items()
        if ref.startswith((f"refs/heads/catan/{game}/", f"refs/catan-chat/{game}/"))
    ]
    seen: set[str] = set()
    todo = list(heads)
    while todo:
        oid = todo.pop()
        if oid in seen:
            continue
        seen.add(oid)
        todo.extend(repo.commit(oid).parents)
    return sorted(seen, key=lambda o: (repo.commit(o).when, o))


def seat_inputs(game_genesis: str, players: tuple[str, ...]) -> dict:
    """Each seat's private inputs for one game (the secrets are HKDF of the private key)."""
    out = {}
    for p in players:
        key = KEYS[p]
        salt = bytes.fromhex(game_genesis)
        dice = key.secret(b"catan-p2p dice chain", salt)
        deck = key.secret(b"catan-p2p deck", salt)
        out[p] = {
            "dice_secret": dice.hex(),
            "dice_anchor": chance_mod.chain(dice)[-1],
            "deck_secret": deck.hex(),
            "deck_key": cards_deck.public_key(deck),
        }
    return out


def special_turn(commits: list[str], kinds: dict[str, str]) -> list[str]:
    """The game's first special building turn in which the seat after the turn's player
    builds, whole: the ``end_turn`` that opens the phase, every commit in it, that seat's
    roll on the fresh beacon and the ``reveal_dice`` that gives its dice; none in a game
    of 2-4 seats."""
    for roll, oid in enumerate(commits):
        if ":fresh_beacon" not in kinds[oid]:
            continue
        start = max(i for i in range(roll) if kinds[commits[i]] == "action:end_turn:special_build")
        built = any(kinds[o].endswith(":special_build") for o in commits[start + 1 : roll])
        if built:
            end = next(
                i
                for i in range(roll, len(commits))
                if kinds[commits[i]].startswith("action:reveal_dice")
            )
            return commits[start : end + 1]
    return []


def describe_game(repo: Repository, game: str, players: tuple[str, ...], blobs: dict, trees: dict):
    """The vectors of one game: its inputs and commits; the vector commits' trees go into
    ``trees`` and ``blobs``."""
    commits = _game_commits(repo, game)
    genesis = next(
        o for o in commits if not repo.commit(o).parents and repo.commit(o).tree != EMPTY_TREE
    )
    info = proto.parse_genesis(repo.commit(genesis))
    kinds = {o: kind_of(repo, o) for o in commits}
    chosen: set[str] = set()
    first: dict[str, str] = {}
    for o in commits:
        first.setdefault(kinds[o], o)
    marked = set(first.values()) | set(special_turn(commits, kinds))
    for o in marked:
        chosen.add(o)
        if kinds[o] != "chat":
            chosen.update(repo.commit(o).parents)
    entries = []
    for o in commits:
        c = repo.commit(o)
        entry = {
            "commit": o,
            "kind": kinds[o],
            "ref": _ref_of(repo, game, o, kinds[o]),
            "raw": c.data.decode(),
            "time": c.when,
            "tree": c.tree,
        }
        if o in marked:
            entry["vector"] = True
        if o in chosen and kinds[o] != "chat":
            files = reading.read_files(repo.store, c.tree, o[:10])
            for data in files.values():
                blobs[hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()] = data.decode()
            trees[c.tree] = {
                path: hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()
                for path, data in sorted(files.items())
            }
        entries.append(entry)
    board = json.loads(
        reading.read_files(repo.store, repo.commit(genesis).tree, "genesis")["board/board.json"]
    )
    return {
        "game": info.game,
        "players": list(info.players),
        "seed": info.seed,
        "victory_points": info.victory_points,
        **({"timeout": info.timeout} if info.timeout else {}),
        "board": board,
        "genesis": genesis,
        "seats": seat_inputs(genesis, players),
        "commits": entries,
    }


def vectors(where: Path | None = None) -> dict:
    """The vectors, computed now, written into the repository ``where`` (else a throw-away one)."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(where or tmp)
        init_repo(path)
        repo = GameRepo(path)
        clock = Clock(WHEN)
        try:
            with fixed_clock(clock):
                play = play_game(repo, clock, PLAY_SEED)
                clock.now += 100
                repo.store.write(b"tree", b"")  # the chat's empty tree
                gone = abandon_game(repo, clock)
                clock.now += 100
                six = extension_game(repo, clock)
            blobs: dict[str, str] = {}
            trees: dict[str, dict[str, str]] = {}
            games = [
                describe_game(repo, play, PLAY, blobs, trees),
                describe_game(repo, gone, ABANDON, blobs, trees),
                describe_game(repo, six, EXTENSION, blobs, trees),
            ]
        finally:
            repo.close()
    play_game_, gone_game, six_game = games
    return {
        "protocol": proto.PROTOCOL_VERSION,
        "seat_keys": {p: k.public for p, k in KEYS.items()},
        "private_keys": {p: (p.encode() * 32)[:32].hex() for p in KEYS},
        "play": {k: v for k, v in play_game_.items() if k != "commits"},
        "commits": play_game_["commits"],
        "abandon": gone_game,
        "extension": six_game,
        "trees": trees,
        "blobs": blobs,
    }


# --- the rebuild: every vector from its inputs, with the functions PROTOCOL.md names ----------


class Mismatch(Exception):
    """A vector that does not rebuild; the message names the section and the step."""


def _expect(section: str, what: str, made: object, recorded: object) -> None:
    if made != recorded:
        raise Mismatch(
            f"{section}: {what} rebuilds as {made!r:.200}, the vector holds {recorded!r:.200}"
        )


class Rebuild:
    """Rebuilds the vectors of one game from its inputs (PROTOCOL.md §9 lists the steps)."""

    def __init__(self, data: dict, game: dict) -> None:
        self.data = data
        self.game = game
        self.by_id = {c["commit"]: c for c in game["commits"]}
        self.private = {p: bytes.fromhex(k) for p, k in data["private_keys"].items()}
        self.seats = game["seats"]
        self.info = codec.GameInfo(game["game"], game["seed"], game.get("timeout", 0))

    # the pieces of a commit
    def files(self, tree: str) -> dict[str, bytes]:
        return {p: self.data["blobs"][b].encode() for p, b in self.data["trees"][tree].items()}

    def commit(self, oid: str) -> Commit:
        return Commit(oid, self.by_id[oid]["raw"].encode())

    def state(self, oid: str):
        """§4: a state is its tree's files, decoded."""
        return reading.decode(self.files(self.commit(oid).tree), oid[:10])[0]

    def written(self, state) -> tuple[str, dict[str, bytes]]:
        """§4: the files of ``state``, serialised, and their tree id."""
        store = MemoryObjectStore()
        tree = codec.StateWriter(store, self.info).write(state)
        return tree, reading.read_files(store, tree, "rebuilt")

    def check_tree(self, state, oid: str) -> None:
        tree, files = self.written(state)
        recorded = (
            self.files(self.commit(oid).tree)
            if self.commit(oid).tree in self.data["trees"]
            else None
        )
        if recorded is not None:
            for path in sorted(set(files) | set(recorded)):
                _expect("§4 The state tree", f"file {path}", files.get(path), recorded.get(path))
        _expect("§4 The state tree", "the tree id", tree, self.commit(oid).tree)
        rebuilt = hashlib.sha1(b"tree %d\0" % len(tree_data_of(files)) + tree_data_of(files))
        _expect("§4 The state tree", "the tree id from the files", rebuilt.hexdigest(), tree)

    def check_bytes(self, oid: str, message: str) -> None:
        """§3 Commits and Signatures: the exact bytes, signed with the author's key."""
        c = self.commit(oid)
        _expect("§3 The message", "the message", message, c.message)
        when = self.by_id[oid]["time"]  # an input: the clock the author read (§9)
        fields = (c.tree, c.parents, c.author, player_email(c.author), when, message)
        unsigned = commit_data(*fields)
        raw = unsigned
        if c.parents or c.tree == EMPTY_TREE:
            key = SeatKey.from_seed(self.private[c.author])
            raw = commit_data(*fields, key.sign(unsigned))
        _expect("§3 Commits", "the commit bytes", raw.decode(), self.by_id[oid]["raw"])
        made = hashlib.sha1(b"commit %d\0" % len(raw) + raw).hexdigest()
        _expect("§3 Commits", "the commit id", made, oid)

    # the secrets a seat adds
    def secret_fields(self, state, action: Action, parent: str) -> Action:
        """§3: what only the acting seat can add, recomputed from its inputs."""
        seat = state.players.index(action.player)
        me = self.seats[action.player]
        deck_secret = bytes.fromhex(me["deck_secret"])
        deck = state.deck
        if isinstance(action, ClaimSeat):  # §3 Seat claims, Dice, The hidden deck: Deck keys
            key = SeatKey.from_seed(self.private[action.player]).public
            return ClaimSeat(
                action.player,
                key,
                chance_mod.chain(bytes.fromhex(me["dice_secret"]))[-1],
                cards_deck.public_key(deck_secret),
                cards_deck.key_proof(deck_secret, key),
            )
        if isinstance(action, (RollDice, RevealDice, EndTurn)):  # §3 Dice: the next element
            chain = chance_mod.chain(bytes.fromhex(me["dice_secret"]))
            reveal = chain[chain.index(state.reveals[seat]) - 1]
            action = replace(action, reveal=reveal)
        if isinstance(action, RevealDice):  # §3 Dice: the roller's element, then this one
            roller = state.reveals[(seat + 1) % len(state.players)]
            action = replace(action, dice=chance_mod.roll_of(state.turn, roller, action.reveal))
        if isinstance(action, RollDice):
            beacon = state.reveals[(seat - 1) % len(state.players)]
            dice = chance_mod.roll_of(state.turn, action.reveal, beacon)
            if dice_step_due(state, seat):  # §3 Dice: a roll after a decision
                dice = None
            owed = deck.owed_shares(seat)  # §3 Drawing: a share of every card owed
            shares = tuple(
                f"{p}:{cards_deck.share(deck_secret, deck.opened[p], deck.keys[seat])}"
                for p in owed
            )
            action = replace(action, dice=dice, shares=shares or None)
        if isinstance(action, BuildSettlement) and action.deck:  # §3 Shuffles, Shuffle proofs
            before = deck.passes[-1] if deck.passes else cards_deck.first_cards(deck.size)
            context = cards_deck.shuffle_context(deck.keys, seat)
            after, proof = cards_deck.prove_shuffle(before, deck_secret, context)
            action = replace(action, deck=after, proof=proof)
        if isinstance(action, MoveRobber) and action.token:  # §3 Steals: the robber's token
            tile = state.board.graph.tile_index[action.tile]
            victim = state.players.index(action.victim)
            context = steal_context(state.turn, tile, victim)
            action = replace(action, token=cards_deck.token(deck_secret, context))
        if isinstance(action, GiveCard):  # §3 Steals: the victim's answer
            context = steal_context(state.turn, state.robber, seat)
            action = replace(action, answer=cards_deck.token(deck_secret, context))
        if isinstance(action, ShowSteal):  # §3 Steals: a steal shown for a monopoly
            robbed = next(s for s in state.steals if s.victim == seat)
            action = replace(action, proof=cards_deck.exchange(deck_secret, robbed.token))
        card = getattr(action, "card", None)
        if isinstance(card, str):  # §3 Playing and winning: a card proof
            pos = int(card.split(":")[0])
            proof = cards_deck.share(deck_secret, deck.opened[pos], deck.keys[seat])
            action = replace(action, card=f"{pos}:{proof}")
        if isinstance(action, ClaimVictory):
            cards = []
            for card in action.cards:
                pos = int(card.split(":")[0])
                proof = cards_deck.share(deck_secret, deck.opened[pos], deck.keys[seat])
                cards.append(f"{pos}:{proof}")
            action = replace(action, cards=tuple(cards))
        if isinstance(action, RevealDeck):  # §3 The end
            action = replace(action, secret=deck_secret.hex())
        if isinstance(action, ShowsSteals) and action.steals:  # §3 Steals: a pending steal shown
            mine = [s for s in state.steals if seat in (s.mover, s.victim)]
            proofs = tuple(cards_deck.exchange(deck_secret, s.other_value(seat)) for s in mine)
            action = replace(action, steals=proofs)
        return action

    # one commit
    def rebuild(self, oid: str) -> str:
        """Rebuild the vector commit ``oid``; returns the sections it followed."""
        entry = self.by_id[oid]
        c = self.commit(oid)
        kind = entry["kind"]
        if kind == "genesis":  # §3 Genesis
            board = Board.from_data(self.game["board"])
            declared = proto.GenesisInfo(
                self.game["game"],
                tuple(self.game["players"]),
                self.game["seed"],
                self.game["victory_points"],
                self.game.get("timeout", 0),
            )
            state, _ = initial_state(declared, board)
            self.check_tree(state, oid)
            self.check_bytes(oid, proto.genesis_message(declared))
            return "§3 Genesis, §4, §3 Commits"
        if kind == "chat":  # §2 Chat
            _expect("§2 Chat", "the chat tree", c.tree, EMPTY_TREE)
            self.check_bytes(oid, c.message)
            return "§2 Chat, §3 Commits, §3 Signatures"
        if kind.startswith("merge:"):
            return self.rebuild_merge(oid, kind.split(":")[1])
        parent = c.parents[0]
        state = self.state(parent)
        recorded = proto.parse_action(c)
        action = self.secret_fields(state, recorded, parent)
        _expect(
            "§3 Action commits", "the action with its secrets", action.dumps(), recorded.dumps()
        )
        new, resolved = step(
            state, action.unresolved(), chance_mod.derive_chance(self.info.seed, parent)
        )
        _expect("§6", "the action's outcomes", resolved.dumps(), recorded.dumps())
        self.check_tree(new, oid)
        self.check_bytes(oid, proto.action_message(resolved, self.info.game))
        return "§3 Action commits, §3 secrets, §6, §4, §3 The message, §3 Signatures"

    def rebuild_merge(self, oid: str, kind: str) -> str:
        c = self.commit(oid)
        if kind == "abandon":  # §3 Liveness: the closing merge keeps the abandon line's tree
            over = self.commit(c.parents[0])
            _expect("§3 Liveness", "the closing merge's tree", c.tree, over.tree)
            late = self.commit(c.parents[1])
            self.check_bytes(
                oid, proto.merge_message(c.author, kind, [late.author], self.info.game)
            )
            return "§3 Liveness, §3 Merge commits, §3 Signatures"
        opening = self.state(c.parents[0])
        state = opening
        answers = []
        for p in c.parents[1:]:  # §3 Merge commits: the answers in parent order
            answer = proto.parse_action(self.commit(p))
            answers.append(answer.player)
            state = step(state, as_merged(opening, state, answer))[0]
        self.check_tree(state, oid)
        self.check_bytes(oid, proto.merge_message(c.author, kind, answers, self.info.game))
        return "§3 Merge commits, §4, §3 The message, §3 Signatures"


def tree_data_of(files: dict[str, bytes]) -> bytes:
    """§4: the root tree of ``files`` (``path -> bytes``), in Git's tree format."""
    store = MemoryObjectStore()
    folders: dict[str, dict[str, tuple[bool, str]]] = {}
    root: dict[str, tuple[bool, str]] = {}
    for path, data in files.items():
        folder, _, name = path.rpartition("/")
        (folders.setdefault(folder, {}) if folder else root)[name] = (
            False,
            store.write(b"blob", data),
        )
    for folder, entries in folders.items():
        root[folder] = (True, store.write(b"tree", tree_data(entries)))
    return tree_data(root)


def games_of(data: dict) -> list[dict]:
    """The games of ``vectors.json``, each with its ``commits``: play, abandon, extension."""
    return [{**data["play"], "commits": data["commits"]}, data["abandon"], data["extension"]]


def rebuild_all(data: dict) -> list[tuple[str, str, str]]:
    """Every vector commit rebuilt: ``(game, kind, sections)``; ``Mismatch`` at the first
    that does not rebuild."""
    done = []
    for game in games_of(data):
        rebuild = Rebuild(data, game)
        for entry in game["commits"]:
            if entry.get("vector"):
                try:
                    sections = rebuild.rebuild(entry["commit"])
                except Mismatch as exc:
                    raise Mismatch(
                        f"{game['game']} {entry['kind']} {entry['commit'][:10]}: {exc}"
                    ) from None
                done.append((game["game"], entry["kind"], sections))
    return done


def main(argv: list[str]) -> int:
    now = json.dumps(vectors(), indent=1, sort_keys=True) + "\n"
    if "--check" in argv:
        if not OUT.exists() or OUT.read_text() != now:
            print(f"{OUT} is out of step with the code; run `python tools/vectors.py`")
            return 1
        try:
            done = rebuild_all(json.loads(now))
        except Mismatch as exc:
            print(f"a vector does not rebuild from its inputs: {exc}")
            return 1
        print(
            f"{OUT.name}: the code writes exactly the vectors, and all {len(done)} vector "
            "commits rebuild from their inputs"
        )
        return 0
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(now)
    print(f"wrote {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
