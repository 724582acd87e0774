#!/usr/bin/env bash
# Writes a short summary of a text file: counts, then its first 20 non-empty lines, numbered.
set -euo pipefail
if [ "$#" -ne 2 ]; then
  echo "usage: summarize.sh INPUT OUTPUT" >&2
  exit 2
fi
input=$1
output=$2
mkdir -p "$(dirname "$output")"
{
  echo "File: $input"
  echo "Lines: $(wc -l < "$input" | tr -d ' ')"
  echo "Words: $(wc -w < "$input" | tr -d ' ')"
  echo "Bytes: $(wc -c < "$input" | tr -d ' ')"
  echo
  echo "First 20 non-empty lines:"
  grep -v '^[[:space:]]*$' "$input" | head -n 20 | nl -ba
} > "$output"
