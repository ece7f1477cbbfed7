#!/usr/bin/env bash
# backends_agree.sh: every golden `eval` test gives its expected output byte for byte with --backend jit too,
# and every shipped machine x app pair gives the same table, JSON, errors and exit status with both backends.
set -uo pipefail
GPMC=$1
cd "$2"
failures=0
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
count=0
while IFS= read -r test; do
  case "$test" in */inputs/*) continue ;; esac
  [ -e "${test%.gpm}.run" ] && continue
  line=$(head -n1 "$test")
  case "$line" in *--backend*) continue ;; "// RUN: eval "*) ;; *) continue ;; esac
  args=${line#// RUN: }
  args=${args//%s/$test}
  eval "set -- $args"
  "$GPMC" "$@" --backend jit > "$work/out" 2> "$work/err"
  status=$?
  # The provenance's commit and digests as the golden runner writes them (tests/golden/run_golden.cmake).
  { printf '# exit: %s\n# stdout:\n' "$status"; cat "$work/out"; printf '# stderr:\n'; cat "$work/err"; } |
    python3 -c 'import re, sys
t = sys.stdin.read()
t = re.sub(r"\"commit\": \"[^\"]*\"", "\"commit\": \"COMMIT\"", t)
t = re.sub(r"\"bytes\": [0-9]+,(\s*)\"sha256\": \"[0-9a-f]+\"", "\"bytes\": 0,\\1\"sha256\": \"SHA256\"", t)
sys.stdout.write(t)' > "$work/actual"
  if ! cmp -s "$work/actual" "${test%.gpm}.out"; then
    echo "FAIL (--backend jit differs from ${test%.gpm}.out): $test"
    diff "${test%.gpm}.out" "$work/actual" | head -20
    failures=$((failures + 1))
  fi
  count=$((count + 1))
done < <(find tests/golden -name '*.gpm' | sort)
for machine in machines/*.gpm; do
  for app in apps/*.gpm; do
    for format in table json; do
      "$GPMC" eval "$machine" "$app" --format "$format" > "$work/interp" 2>&1; echo "exit $?" >> "$work/interp"
      "$GPMC" eval "$machine" "$app" --format "$format" --backend jit > "$work/jit" 2>&1; echo "exit $?" >> "$work/jit"
      if ! cmp -s "$work/interp" "$work/jit"; then
        echo "FAIL: $machine $app --format $format differs between backends"
        failures=$((failures + 1))
      fi
      count=$((count + 1))
    done
  done
done
echo "$count comparisons, $failures failures"
[ "$failures" -eq 0 ]
