#!/usr/bin/env bash
# link_order.sh: routes never depend on the order links are declared in. Every shipped machine is written again with
# the link declarations of each block reversed (permute_links.py), and every app that evaluates on the machine gives
# byte-identical JSON on both. Usage: link_order.sh GPMC REPO_ROOT
set -u
gpmc=$(realpath "$1")
root=$(realpath "$2")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -r "$root/machines" "$work/machines"
cd "$root" || exit 1
failures=0
compared=0
without_provenance() { python3 -c 'import json, sys; d = json.load(sys.stdin); d.pop("provenance", None); print(json.dumps(d, indent=1))' 2> /dev/null; }
for machine in machines/*.gpm; do
  python3 tests/stress/permute_links.py "$machine" "$work/$machine" > /dev/null || { echo "FAIL cannot permute $machine"; failures=$((failures + 1)); continue; }
  for app in apps/*.gpm; do
    # The provenance names the machine file and its digest, which differ by construction: compared without it.
    original=$("$gpmc" eval "$machine" "$app" --format json 2> /dev/null | without_provenance) || continue
    [ -n "$original" ] || continue
    permuted=$("$gpmc" eval "$work/$machine" "$app" --format json 2> /dev/null | without_provenance)
    compared=$((compared + 1))
    if [ "$original" != "$permuted" ]; then
      echo "FAIL $machine $app: the output changes when the links are declared in reverse order"
      diff <(echo "$original") <(echo "$permuted") | head -10
      failures=$((failures + 1))
    fi
  done
done
echo "$compared machine/app pairs compared, $failures differ"
[ "$compared" -gt 0 ] && [ "$failures" -eq 0 ]
