"""The canonical JSON writer's short cuts for strings and integers give the very bytes of
the plain encoder: a file's bytes fix its blob id, so every tree id depends on them."""

from __future__ import annotations

import json
from enum import IntEnum, StrEnum

from hypothesis import given
from hypothesis import strategies as st

from catan_p2p.store.codec import dumps

_compact = json.JSONEncoder(sort_keys=True, separators=(", ", ": "), ensure_ascii=False).encode


def _reference(value, pad: str = "") -> str:
    """The writer as it was before the short cuts: every leaf through the encoder."""
    if isinstance(value, dict):
        if not value:
            return "{}"
        inner = pad + " "
        items = ",\n".join(
            f"{inner}{_compact(k)}: {_reference(value[k], inner)}" for k in sorted(value)
        )
        return f"{{\n{items}\n{pad}}}"
    if isinstance(value, list) and value and isinstance(value[0], dict):
        items = ",\n".join(f"{pad}  {_compact(v)}" for v in value)
        return f"[\n{items}\n{pad} ]"
    return _compact(value)


class Colour(StrEnum):
    RED = "red"


class Count(IntEnum):
    TWO = 2


leaves = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False)
    | st.text()
    | st.sampled_from([Colour.RED, Count.TWO, 'é"\\\n\u2028', -0, 10**30])
)
values = st.recursive(
    leaves,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(st.text(max_size=6), inner, max_size=5)
        | st.lists(st.dictionaries(st.text(max_size=4), inner, min_size=1, max_size=3), min_size=1)
    ),
    max_leaves=25,
)


@given(values)
def test_dumps_writes_the_bytes_of_the_plain_encoder(value):
    assert dumps(value) == (_reference(value) + "\n").encode()
