#!/bin/bash
# fmt_shipped.sh GPMC ROOT WORK: every shipped .gpm file (all but the tests') is in gpmc fmt's layout; and gpmc fmt
# rewrites a file in place (same permissions) to a layout that --check then accepts.
set -u
gpmc=$1 root=$2 work=$3
cd "$root" || exit 1
mapfile -t shipped < <(find machines apps stdlib validation bench traces -name '*.gpm' 2>/dev/null | sort)
if [ "${#shipped[@]}" -lt 40 ]; then
  echo "only ${#shipped[@]} shipped .gpm files found"; exit 1
fi
if ! "$gpmc" fmt --check "${shipped[@]}"; then
  echo "FAIL: the files above are not formatted; run: gpmc fmt FILE"; exit 1
fi
echo "${#shipped[@]} shipped files formatted"

rm -rf "$work" && mkdir -p "$work" || exit 1
printf 'machine m{\nnode{   // the node\ncpu c{cores=4}\n\n\n  gpu g[ 2 ]\n}\n}\n' > "$work/m.gpm"
chmod 640 "$work/m.gpm"
"$gpmc" fmt --check "$work/m.gpm" > "$work/diff.txt"
[ $? -eq 1 ] || { echo "FAIL: --check accepted an unformatted file"; exit 1; }
grep -q '^+  node {' "$work/diff.txt" || { echo "FAIL: the diff lacks the reindented line"; cat "$work/diff.txt"; exit 1; }
"$gpmc" fmt "$work/m.gpm" || { echo "FAIL: gpmc fmt failed"; exit 1; }
"$gpmc" fmt --check "$work/m.gpm" || { echo "FAIL: the rewritten file is not formatted"; exit 1; }
[ "$(stat -c %a "$work/m.gpm")" = 640 ] || { echo "FAIL: permissions changed"; exit 1; }
[ -z "$(find "$work" -name '*gpmc-fmt*')" ] || { echo "FAIL: a temporary file was left"; exit 1; }
expected=$'machine m {\n  node {                                            // the node\n    cpu c { cores = 4 }\n\n    gpu g[2]\n  }\n}'
[ "$(cat "$work/m.gpm")" = "$expected" ] || { echo "FAIL: unexpected layout:"; cat "$work/m.gpm"; exit 1; }
echo "in-place rewrite ok"
