"""Regenerate (or, with --check, compare) state_schema/*.schema.json from the pydantic models.

The models in catan_p2p/store/schema.py are the schema of the state files; this keeps the
language-neutral copy in state_schema/ in step. CI runs it with --check.

    python tools/schema.py          # write the files
    python tools/schema.py --check  # exit 1 when a file differs from the models
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from catan_p2p.store.schema import FILES, SCHEMA_VERSION

OUT = Path(__file__).resolve().parent.parent / "state_schema"


def schema_name(path: str) -> str:
    """``players/<player>.json`` -> ``players.player.schema.json``."""
    stem = path.removesuffix(".json").replace("<", "").replace(">", "").replace("/", ".")
    return f"{stem}.schema.json"


def render() -> dict[str, str]:
    out = {}
    for path, model in FILES.items():
        schema = model.model_json_schema()
        schema["$id"] = f"catan-p2p/state/v{SCHEMA_VERSION}/{path}"
        schema["description"] = (schema.get("description") or "").strip()
        out[schema_name(path)] = json.dumps(schema, indent=2, sort_keys=True) + "\n"
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare instead of writing")
    args = parser.parse_args(argv)
    files = render()
    if args.check:
        stale = [
            n
            for n, text in files.items()
            if not (OUT / n).exists() or (OUT / n).read_text() != text
        ]
        extra = [p.name for p in OUT.glob("*.schema.json") if p.name not in files]
        if stale or extra:
            print(
                "state_schema/ is out of step with catan_p2p/store/schema.py "
                f"(differs: {', '.join(stale + extra)}); run `python tools/schema.py` and commit",
                file=sys.stderr,
            )
            return 1
        print(f"state_schema/: {len(files)} schema files match the models")
        return 0
    OUT.mkdir(exist_ok=True)
    for name, text in files.items():
        (OUT / name).write_text(text)
    print(f"wrote {len(files)} schema files to {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
