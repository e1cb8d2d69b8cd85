"""The seat keys' side of the rules: what a key, a proof or a secret in a move proves.

The rules (``catan_p2p.rules``) know cards and players; this package checks the seat
claims, the dice-chain elements, the hidden deck's shuffles, shares and card proofs,
and the steals' tokens and answers, and ``trust.engine`` plugs those checks into the
rules (``rules.seat_keys.SeatKeys``). Pure and deterministic, like the rules.
"""
