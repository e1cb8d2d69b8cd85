"""Every exception catan_p2p raises, in one place.

Each class is one kind of failure, so players, peers and tests can tell a broken
rule from a corrupt file from a forked branch by type alone.
"""


class CatanError(Exception):
    """Base class of every catan_p2p error; its message is one sentence for a person."""


class IllegalAction(CatanError, ValueError):
    """An action breaks a rule of the game; the message names the rule and the values."""


class InvalidAction(CatanError, ValueError):
    """An action cannot even be parsed (bad JSON, unknown kind, malformed id)."""


class InvariantViolation(CatanError):
    """A state breaks a conservation law or a board rule that no legal play can break."""


class BoardError(CatanError, ValueError):
    """A board description is inconsistent (wrong counts, unknown tiles, bad ports)."""


class StateFileError(CatanError):
    """A state file in a commit is malformed or violates the schema."""


class VerificationError(CatanError):
    """A commit from a peer fails verification (wrong author, illegal action, bad tree)."""


class NotYetValid(VerificationError):
    """A commit dated ahead of this clock: refused for now, taken once its time has come."""


class ForkError(CatanError):
    """Two different histories claim the same place in one player's log."""


class DamagedRepository(CatanError):
    """This machine's own copy of a game cannot be read: a pack or object file is cut
    short or corrupt (a crash, a full disk, a bad copy). Never a peer's doing."""


class RemoteError(CatanError):
    """A remote could not be reached or refused an operation."""


class RemoteStopped(RemoteError):
    """A Git transfer was stopped before its end: the remote took longer than its time,
    or wrote more than its bound (a hung or hostile remote: ``net.transport.run_git``)."""

    def __init__(self, command: str, reason: str) -> None:
        super().__init__(f"git {command} {reason}; check the remote and retry")
        self.reason = reason  # "timed out after 20 s", "wrote more than 48 MB"


class UsageError(CatanError):
    """The command line or an API was called with arguments that make no sense."""


class InviteError(UsageError):
    """An invitation (``catan-p2p:1:...``) that is not one: malformed, of an unknown
    version, or naming a place of a form the protocol does not allow."""
