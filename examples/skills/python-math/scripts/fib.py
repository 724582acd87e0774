#!/usr/bin/env python3
"""Print the first N Fibonacci numbers, one per line."""
import sys


def main() -> int:
    if len(sys.argv) != 2 or not sys.argv[1].isdigit() or int(sys.argv[1]) > 10000:
        print("usage: fib.py N   (0 <= N <= 10000)", file=sys.stderr)
        return 2
    count = int(sys.argv[1])
    a, b = 0, 1
    for _ in range(count):
        print(a)
        a, b = b, a + b
    return 0


if __name__ == "__main__":
    sys.exit(main())
