"""``python -m games.verify EXPORT.json``: check a finished match's export (games/verify)."""

from __future__ import annotations

import json
import sys

from games.verify import verify


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python -m games.verify EXPORT.json", file=sys.stderr)
        return 2
    try:
        with open(argv[0], encoding="utf-8") as file:
            export = json.load(file)
    except (OSError, ValueError) as error:
        print(f"cannot read {argv[0]}: {error}", file=sys.stderr)
        return 2
    report = verify(export)
    print("\n".join(report.lines()))
    return 0 if report.ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
