#!/usr/bin/env python3
"""Print every prime below a bound (sieve of Eratosthenes)."""
import sys


def main() -> int:
    if len(sys.argv) != 2 or not sys.argv[1].isdigit():
        print("usage: primes.py BOUND", file=sys.stderr)
        return 2
    bound = int(sys.argv[1])
    sieve = bytearray([1]) * max(bound, 2)
    sieve[0:2] = b"\x00\x00"
    for i in range(2, int(bound ** 0.5) + 1):
        if sieve[i]:
            sieve[i * i :: i] = bytearray(len(sieve[i * i :: i]))
    for n in range(bound):
        if sieve[n]:
            print(n)
    return 0


if __name__ == "__main__":
    sys.exit(main())
