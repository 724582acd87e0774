#!/usr/bin/env python3
"""Print line, word and character counts of a text file as JSON."""
import collections
import json
import re
import sys


def main() -> int:
    if len(sys.argv) != 2:
        print("usage: stats.py FILE", file=sys.stderr)
        return 2
    try:
        with open(sys.argv[1], encoding="utf-8") as handle:
            text = handle.read()
    except OSError as error:
        print(f"stats.py: cannot read {sys.argv[1]}: {error.strerror}", file=sys.stderr)
        return 2
    words = re.findall(r"[\w']+", text.lower())
    result = {
        "lines": text.count("\n") + (1 if text and not text.endswith("\n") else 0),
        "words": len(words),
        "characters": len(text),
        "top_words": collections.Counter(words).most_common(10),
    }
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
