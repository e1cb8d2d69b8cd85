"""PROTOCOL.md is enough: the vectors recomputed from the page's formulas alone.

Nothing here imports catan_p2p. Each test is what a stranger writes from
state_schema/PROTOCOL.md with hashlib, `cryptography` and PyNaCl's libsodium bindings, and
checks it against state_schema/vectors/vectors.json: the HKDF secrets and dice anchors
(section 1, "Dice"), a roll ("Dice"), a shuffle ("Shuffles"), a steal's token, answer and
shared value ("Steals"), every summary line of a whole game (section 3, the tables), every
state file's bytes (section 4, "The JSON layout"), every tree id ("The tree"), every
commit's signature and bytes (section 3, "Signatures"), and the proofs of a claim, a share,
a card played and a shuffle ("Proofs", "Shuffle proofs").

A change of the protocol that fails one of these must change the page's formula and the
test's copy of it together (then `python tools/vectors.py` writes the new vectors).
"""

from __future__ import annotations

import base64
import hashlib
import json
import struct
from pathlib import Path

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from nacl.bindings import (
    crypto_core_ed25519_from_uniform,
    crypto_core_ed25519_scalar_reduce,
    crypto_core_ed25519_sub,
    crypto_scalarmult_ed25519_base_noclamp,
    crypto_scalarmult_ed25519_noclamp,
)

VECTORS = Path(__file__).resolve().parents[2] / "state_schema" / "vectors" / "vectors.json"
DATA = json.loads(VECTORS.read_text())
GAME = DATA["play"]
COMMITS = DATA["commits"]
BY_ID = {c["commit"]: c for c in COMMITS + DATA["abandon"]["commits"]}
RESOURCES = ("lumber", "brick", "wool", "grain", "ore")


# --- section 1 ----------------------------------------------------------------------------------


class Chance:
    """``Chance(seed, context)``: the stream of section 1, as the page writes it."""

    def __init__(self, seed: str, context: bytes) -> None:
        self.key = hashlib.sha256(b"catan-p2p/v1\0" + seed.encode() + b"\0" + context).digest()
        self.i = 0

    def word(self) -> int:
        block = hashlib.sha256(self.key + self.i.to_bytes(8, "big")).digest()
        self.i += 1
        return int.from_bytes(block[:8], "big")

    def randrange(self, n: int) -> int:
        while True:
            w = self.word()
            if w < 2**64 - (2**64 % n):
                return w % n

    def roll(self) -> tuple[int, int]:
        return (self.randrange(6) + 1, self.randrange(6) + 1)


def permutation(seed: bytes, label: str) -> list[int]:
    order = list(range(25))
    pick = Chance(seed.hex(), label.encode())
    for i in range(24, 0, -1):
        j = pick.randrange(i + 1)
        order[i], order[j] = order[j], order[i]
    return order


def hkdf(private: bytes, genesis: str, info: bytes) -> bytes:
    return HKDF(hashes.SHA256(), 32, bytes.fromhex(genesis), info).derive(private)


def hs(data: bytes) -> bytes:
    return crypto_core_ed25519_scalar_reduce(hashlib.sha512(data).digest())


def deck_key(secret: bytes) -> bytes:
    return hs(b"catan-p2p/deck-key\0" + secret)


def trailer(raw: str, key: str) -> str:
    return next(line for line in raw.splitlines() if line.startswith(key + ": "))[len(key) + 2 :]


def action_of(entry: dict) -> dict:
    return json.loads(trailer(entry["raw"], "Catan-Action"))


def parents(raw: str) -> list[str]:
    head = raw.split("\n\n", 1)[0]
    return [line[7:] for line in head.splitlines() if line.startswith("parent ")]


def files_of(oid: str) -> dict[str, str]:
    tree = DATA["trees"][BY_ID[oid]["tree"]]
    return {path: DATA["blobs"][blob] for path, blob in tree.items()}


def first(kind: str) -> dict:
    return next(c for c in COMMITS if c["kind"] == kind)


# --- the tests ----------------------------------------------------------------------------------


def test_the_secrets_and_anchors_are_hkdf_of_the_private_key():
    for game in (GAME, DATA["abandon"]):
        for player, seat in game["seats"].items():
            private = bytes.fromhex(DATA["private_keys"][player])
            dice = hkdf(private, game["genesis"], b"catan-p2p dice chain")
            deck = hkdf(private, game["genesis"], b"catan-p2p deck")
            assert (dice.hex(), deck.hex()) == (seat["dice_secret"], seat["deck_secret"])
            element = hashlib.sha256(b"catan-p2p/dice-chain\0" + dice).hexdigest()
            for _ in range(4096):
                element = hashlib.sha256(bytes.fromhex(element)).hexdigest()
            assert element == seat["dice_anchor"]


def test_a_roll_is_the_chance_of_the_turn_the_reveal_and_the_beacon():
    roll = first("action:roll_dice:number")
    action = action_of(roll)
    parent = files_of(parents(roll["raw"])[0])
    turn = json.loads(parent["turn.json"])
    players = GAME["players"]
    before = players[(players.index(action["player"]) - 1) % len(players)]
    beacon = json.loads(parent[f"chain/{before}.json"])
    mine = json.loads(parent[f"chain/{action['player']}.json"])
    assert hashlib.sha256(bytes.fromhex(action["reveal"])).hexdigest() == mine
    context = b"dice/v2\0%d\0" % turn["turn"] + action["reveal"].encode() + b"\0" + beacon.encode()
    assert list(Chance("", context).roll()) == action["dice"], "PROTOCOL.md section 3, Dice"


def test_a_roll_after_a_decision_takes_the_element_the_seat_before_reveals_after_it():
    """PROTOCOL.md section 3, "A roll after a decision", by hand: the roller held a card
    face down (or played one), so its roll_dice has no dice and hands the turn's dice
    to the seat before it, whose reveal_dice gives them."""
    reveal = next(c for c in COMMITS if c["kind"].startswith("action:reveal_dice"))
    roll = BY_ID[parents(reveal["raw"])[0]]
    assert roll["kind"].startswith("action:roll_dice:decided")
    action = action_of(roll)
    assert "dice" not in action
    players = GAME["players"]
    roller = action["player"]
    before = players[(players.index(roller) - 1) % len(players)]
    parent = files_of(parents(roll["raw"])[0])
    cards = json.loads(parent[f"players/{roller}.json"]).get("cards", [])
    parent_turn = json.loads(parent["turn.json"])
    decided = parent_turn.get("dev_played") or parent_turn.get("fresh_beacon")
    assert decided or any("shown" not in c for c in cards)
    after = json.loads(files_of(roll["commit"])["turn.json"])
    assert (after["phase"], after["current"], "dice" in after) == ("dice", before, False)
    given = action_of(reveal)
    assert given["player"] == before
    chain = json.loads(files_of(roll["commit"])[f"chain/{before}.json"])
    assert hashlib.sha256(bytes.fromhex(given["reveal"])).hexdigest() == chain
    context = (
        b"dice/v2\0%d\0" % after["turn"]
        + action["reveal"].encode()
        + b"\0"
        + given["reveal"].encode()
    )
    assert list(Chance("", context).roll()) == given["dice"], "PROTOCOL.md section 3, Dice"
    done = json.loads(files_of(reveal["commit"])["turn.json"])
    assert (done["current"], done["dice"]) == (roller, given["dice"])


def test_the_first_shuffle_is_the_cards_permuted_and_multiplied_by_the_deck_key():
    settle = first("action:build_settlement:shuffle")
    action = action_of(settle)
    secret = bytes.fromhex(GAME["seats"][action["player"]]["deck_secret"])
    cards = [
        crypto_core_ed25519_from_uniform(hashlib.sha256(b"catan-p2p/card\0%d" % j).digest())
        for j in range(25)
    ]
    pi = permutation(hashlib.sha256(b"catan-p2p/deck-shuffle\0" + secret).digest(), "deck/shuffle")
    x = deck_key(secret)
    shuffled = [crypto_scalarmult_ed25519_noclamp(x, cards[pi[k]]).hex() for k in range(25)]
    assert shuffled == action["deck"]


def test_a_steal_token_answer_and_shared_value():
    move = first("action:move_robber:rob")
    action = action_of(move)
    players = GAME["players"]
    parent = files_of(parents(move["raw"])[0])
    turn = json.loads(parent["turn.json"])["turn"]
    tiles = [tuple(t["tile"]) for t in GAME["board"]["tiles"]]
    q, r = (int(n) for n in action["tile"].strip("()").split(","))
    context = b"steal\0%d\0%d\0%d" % (turn, tiles.index((q, r)), players.index(action["victim"]))
    point = crypto_core_ed25519_from_uniform(
        hashlib.sha256(b"catan-p2p/token\0" + context).digest()
    )
    seats = GAME["seats"]
    x_r = deck_key(bytes.fromhex(seats[action["player"]]["deck_secret"]))
    x_v = deck_key(bytes.fromhex(seats[action["victim"]]["deck_secret"]))
    token = crypto_scalarmult_ed25519_noclamp(x_r, point)
    assert token.hex() == action["token"][:64]
    answer = next(
        c
        for c in COMMITS
        if c["kind"].startswith("answer:give_card") and parents(c["raw"]) == [move["commit"]]
    )
    value = crypto_scalarmult_ed25519_noclamp(x_v, point)
    assert value.hex() == action_of(answer)["answer"][:64]
    shared = crypto_scalarmult_ed25519_noclamp(x_r, value)
    assert shared == crypto_scalarmult_ed25519_noclamp(x_v, token)
    merge = next(
        c for c in COMMITS if c["kind"] == "merge:steal" and answer["commit"] in parents(c["raw"])
    )
    pending = json.loads(files_of(merge["commit"])["turn.json"])["steals"][-1]
    assert (pending["token"], pending["answer"]) == (token.hex(), value.hex())
    n = sum(pending["hand"].values())
    assert 0 <= Chance("", b"steal/v4\0%d\0" % turn + shared.hex().encode()).randrange(n) < n


def _counts(counts: dict) -> str:
    parts = [f"{counts[r]} {r}" for r in RESOURCES if counts.get(r)]
    return ", ".join(parts) or "nothing"


def _summary(action: dict) -> str:
    """Section 3's table of summary lines."""
    t, cap = action["type"], str.capitalize
    what = {
        "claim_seat": lambda a: "take a seat",
        "build_settlement": lambda a: f"build settlement {a['vertex']}",
        "build_road": lambda a: f"build road {a['edge']}",
        "build_city": lambda a: f"build city {a['vertex']}",
        "roll_dice": lambda a: (
            f"roll {a['dice'][0]}+{a['dice'][1]}={sum(a['dice'])}" if "dice" in a else "roll dice"
        ),
        "reveal_dice": lambda a: f"reveal the dice: {a['dice'][0]}+{a['dice'][1]}={sum(a['dice'])}",
        "discard": lambda a: f"discard {_counts(a['cards'])}",
        "move_robber": lambda a: (
            f"move robber to {a['tile']}" + (f", rob {cap(a['victim'])}" if "victim" in a else "")
        ),
        "give_card": lambda a: "give the robber a card",
        "show_steal": lambda a: "show the card stolen from them",
        "end_turn": lambda a: "end turn",
        "buy_dev_card": lambda a: "buy development card",
        "play_knight": lambda a: "play knight",
        "play_road_building": lambda a: "play road building",
        "end_road_building": lambda a: "end road building",
        "play_year_of_plenty": lambda a: f"play year of plenty for {a['first']} and {a['second']}",
        "play_monopoly": lambda a: f"play monopoly on {a['resource']}",
        "maritime_trade": lambda a: f"trade {a['give']} for 1 {a['get']} with the bank",
        "offer_trade": lambda a: (
            f"offer {_counts(a['give'])} for {_counts(a['get'])}"
            + (f" to {cap(a['to'])}" if "to" in a else "")
        ),
        "answer_trade": lambda a: (
            f"counter-offer {_counts(a['give'])} for {_counts(a['get'])}"
            if "give" in a
            else "accept the offer"
            if a["accept"]
            else "decline the offer"
        ),
        "confirm_trade": lambda a: f"trade with {cap(a['partner'])}",
        "cancel_trade": lambda a: "cancel trade",
        "claim_victory": lambda a: (
            f"show {len(a['cards'])} victory point card"
            + ("s" if len(a["cards"]) != 1 else "")
            + " and win"
        ),
        "reveal_deck": lambda a: "reveal the deck secret",
        "abandon": lambda a: f"end the game: {cap(a['absent'])} has kept it waiting too long",
    }[t](action)
    return f"{cap(action['player'])}: {what}"


MERGE_WHAT = {
    "seat": "seat claims",
    "discard": "discards",
    "trade": "trade answers",
    "steal": "the card given",
    "monopoly": "the stolen cards shown",
    "abandon": "the late moves",
}


def _message(entry: dict, game: dict) -> str:
    raw, kind = entry["raw"], entry["kind"]
    author = raw.split("\nauthor ", 1)[1].split(" ", 1)[0]
    if kind == "genesis":
        payload = trailer(raw, "Catan-Genesis")
        return f"Genesis: game {game['game']} for {', '.join(game['players'])}\n\nCatan-Genesis: {payload}\n"
    if kind == "chat":
        return raw.split("\n\n", 1)[1]
    stamp = f"Catan-Game: {game['game']}\nCatan-Protocol: 7\n"
    if kind.startswith("merge:"):
        merge = json.loads(trailer(raw, "Catan-Merge"))
        names = ", ".join(p.capitalize() for p in merge["answers"])
        payload = json.dumps(merge, sort_keys=True, separators=(",", ":"))
        summary = f"{author.capitalize()}: merge {MERGE_WHAT[merge['kind']]} of {names}"
        return f"{summary}\n\nCatan-Merge: {payload}\n{stamp}"
    action = action_of(entry)
    payload = json.dumps(action, sort_keys=True, separators=(",", ":"))
    return f"{_summary(action)}\n\nCatan-Action: {payload}\n{stamp}"


def test_every_message_of_both_games_is_the_one_the_tables_give():
    for game, entries in ((GAME, COMMITS), (DATA["abandon"], DATA["abandon"]["commits"])):
        for entry in entries:
            assert entry["raw"].split("\n\n", 1)[1] == _message(entry, game), entry["kind"]


def _render(value, pad: str) -> str:
    """Section 4, "The JSON layout"."""

    def compact(x) -> str:
        return json.dumps(x, sort_keys=True, separators=(", ", ": "), ensure_ascii=False)

    if isinstance(value, dict):
        if not value:
            return "{}"
        inner = pad + " "
        items = [f"{inner}{compact(k)}: {_render(value[k], inner)}" for k in sorted(value)]
        return "{\n" + ",\n".join(items) + "\n" + pad + "}"
    if isinstance(value, list) and value and isinstance(value[0], dict):
        return "[\n" + ",\n".join(pad + "  " + compact(v) for v in value) + "\n" + pad + " ]"
    return compact(value)


def test_every_state_file_is_the_json_layout_of_its_data():
    assert DATA["blobs"]
    for text in DATA["blobs"].values():
        assert _render(json.loads(text), "") + "\n" == text


def _object(kind: str, data: bytes) -> tuple[str, bytes]:
    return hashlib.sha1(b"%s %d\0" % (kind.encode(), len(data)) + data).hexdigest(), data


def _tree(entries: dict[str, tuple[bool, str]]) -> str:
    def key(name: str) -> bytes:
        return name.encode() + (b"/" if entries[name][0] else b"")

    data = b"".join(
        (b"40000 " if entries[n][0] else b"100644 ")
        + n.encode()
        + b"\0"
        + bytes.fromhex(entries[n][1])
        for n in sorted(entries, key=key)
    )
    return _object("tree", data)[0]


def test_every_tree_id_is_git_s_tree_of_its_files():
    for tree_id, tree in DATA["trees"].items():
        folders: dict[str, dict] = {}
        root: dict[str, tuple[bool, str]] = {}
        for path, blob in tree.items():
            assert _object("blob", DATA["blobs"][blob].encode())[0] == blob
            folder, _, name = path.rpartition("/")
            (folders.setdefault(folder, {}) if folder else root)[name] = (False, blob)
        for folder, entries in folders.items():
            root[folder] = (True, _tree(entries))
        assert _tree(root) == tree_id


def _string(data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + data


def test_every_commit_is_its_header_and_message_signed_in_git_s_ssh_format():
    for entry in COMMITS + DATA["abandon"]["commits"]:
        raw = entry["raw"]
        assert _object("commit", raw.encode())[0] == entry["commit"]
        head, message = raw.split("\n\n", 1)
        lines = head.split("\n")
        unsigned = [line for line in lines if not line.startswith(("gpgsig ", " "))]
        if entry["kind"] == "genesis":
            assert unsigned == lines
            continue
        payload = ("\n".join(unsigned) + "\n\n" + message).encode()
        author = unsigned[-1].split(" ")[1]
        private = Ed25519PrivateKey.from_private_bytes(bytes.fromhex(DATA["private_keys"][author]))
        public = private.public_key().public_bytes_raw()
        signed = b"SSHSIG" + _string(b"git") + _string(b"") + _string(b"sha512")
        signed += _string(hashlib.sha512(payload).digest())
        wire = _string(b"ssh-ed25519") + _string(public)
        blob = b"SSHSIG" + struct.pack(">I", 1) + _string(wire) + _string(b"git") + _string(b"")
        blob += _string(b"sha512") + _string(
            _string(b"ssh-ed25519") + _string(private.sign(signed))
        )
        b64 = base64.b64encode(blob).decode()
        armour = [
            "-----BEGIN SSH SIGNATURE-----",
            *(b64[i : i + 70] for i in range(0, len(b64), 70)),
            "-----END SSH SIGNATURE-----",
        ]
        header = [*unsigned, "gpgsig " + "\n ".join(armour)]
        assert "\n".join(header) + "\n\n" + message == raw, entry["kind"]
        assert f"ssh-ed25519 {base64.b64encode(wire).decode()}" == DATA["seat_keys"][author]


# --- the proofs ("Proofs", "Shuffle proofs") ----------------------------------------------------

G = crypto_scalarmult_ed25519_base_noclamp((1).to_bytes(32, "little"))


def check_dleq(proof: bytes, h: bytes, b: bytes, s: bytes, context: bytes) -> bool:
    """That ``s = x·b`` for the ``x`` of ``h = x·G``: the verifier of "Proofs"."""
    c, z = proof[:32], proof[32:]
    a = crypto_core_ed25519_sub(crypto_scalarmult_ed25519_base_noclamp(z), _mul(c, h))
    bb = crypto_core_ed25519_sub(_mul(z, b), _mul(c, s))
    return hs(b"catan-p2p/dleq\0" + G + h + b + s + a + bb + context) == c


def _mul(k: bytes, p: bytes) -> bytes:
    return crypto_scalarmult_ed25519_noclamp(k, p)


def _deck_keys(oid: str) -> list[str]:
    files = files_of(oid)
    return [json.loads(files[f"deck/{p}.json"])["key"] for p in GAME["players"]]


def test_a_claim_a_share_a_card_played_and_a_token_carry_their_proofs():
    claim = action_of(first("answer:claim_seat"))
    h = bytes.fromhex(claim["deck"])
    assert check_dleq(bytes.fromhex(claim["proof"]), h, G, h, b"seat\0" + claim["key"].encode())
    roll = first("action:roll_dice:number:shares")
    action, parent = action_of(roll), parents(roll["raw"])[0]
    keys = _deck_keys(parent)
    files = files_of(parent)
    opened = {
        card["position"]: card["opened"]
        for p in GAME["players"]
        for card in json.loads(files[f"players/{p}.json"]).get("cards", [])
    }
    h = bytes.fromhex(keys[GAME["players"].index(action["player"])])
    for share in action["shares"]:
        pos, proof = share.split(":")
        removed, cz = bytes.fromhex(proof[:64]), bytes.fromhex(proof[64:])
        assert check_dleq(cz, h, removed, bytes.fromhex(opened[int(pos)]), b"share")
    knight = first("action:play_knight")
    action, parent = action_of(knight), parents(knight["raw"])[0]
    files = files_of(parent)
    mine = {
        c["position"]: c for c in json.loads(files[f"players/{action['player']}.json"])["cards"]
    }
    pos, proof = action["card"].split(":")
    h = bytes.fromhex(json.loads(files[f"deck/{action['player']}.json"])["key"])
    removed = bytes.fromhex(proof[:64])
    assert check_dleq(
        bytes.fromhex(proof[64:]), h, removed, bytes.fromhex(mine[int(pos)]["opened"]), b"share"
    )
    cards = [
        crypto_core_ed25519_from_uniform(hashlib.sha256(b"catan-p2p/card\0%d" % j).digest())
        for j in range(25)
    ]
    assert cards.index(removed) < 14  # a knight: cards 0-13


def test_the_first_shuffle_proof_verifies_as_the_page_lays_it_out():
    settle = first("action:build_settlement:shuffle")
    action, parent = action_of(settle), parents(settle["raw"])[0]
    seat = GAME["players"].index(action["player"])
    keys = _deck_keys(parent)
    h = bytes.fromhex(keys[seat])
    ctx = "".join(keys).encode() + b"\0%d" % seat
    before = [
        crypto_core_ed25519_from_uniform(hashlib.sha256(b"catan-p2p/card\0%d" % j).digest())
        for j in range(25)
    ]
    after = [bytes.fromhex(p) for p in action["deck"]]
    proof = action["proof"]
    digest = bytes.fromhex(proof[:64])
    at, shadows = 64, []
    for i in range(64):
        if not digest[i // 8] >> (i % 8) & 1:  # the round's seed
            seed = bytes.fromhex(proof[at : at + 64])
            e, sigma = hs(b"catan-p2p/shuffle-round\0" + seed), permutation(seed, "deck/round")
            shadows.append(_mul(e, h) + b"".join(_mul(e, after[sigma[k]]) for k in range(25)))
            at += 64
        else:  # the way from D: e·x and tau
            k_ = bytes.fromhex(proof[at : at + 64])
            tau = bytes.fromhex(proof[at + 64 : at + 114])
            assert sorted(tau) == list(range(25))
            shadow = crypto_scalarmult_ed25519_base_noclamp(k_)
            shadows.append(shadow + b"".join(_mul(k_, before[tau[k]]) for k in range(25)))
            at += 114
    assert at == len(proof)
    data = b"catan-p2p/shuffle-proof\0" + ctx + h + b"".join(before) + b"".join(after)
    assert hashlib.sha256(data + b"".join(shadows)).digest() == digest
