#!/usr/bin/env bash
# run_fuzzer.sh: runs one libFuzzer target of tools/fuzz/ for a while, seeded from the repository and with a
# dictionary of the grammar's keywords and punctuation; fails on a crash, a sanitizer report or an uncaught exception.
#
#   run_fuzzer.sh TARGET SECONDS WORKDIR ROOT {model|tables} [SEED]
#
# SEED fixes libFuzzer's random seed (the suite's runs use 1, so that they explore the same inputs each time, as
# far as timing allows); without it every run explores differently.
# WORKDIR keeps the corpus between runs (WORKDIR/corpus) and receives any crashing input (WORKDIR/crash-*). The seeds:
# for `model`, every .gpm file of machines/, apps/, stdlib/ and tests/golden/; for `tables`, every .csv file of
# validation/, traces/ and tests/. The run is libFuzzer's fork mode with one job: a hang or a run out of memory
# (a legal but enormous model) is logged and the run goes on; a crash stops it with the input saved.
set -euo pipefail
target=$1 seconds=$2 work=$3 root=$4 kind=$5 seed=${6:-0}
mkdir -p "$work/corpus" "$work/seeds"
if [[ $kind == model ]]; then
  # (not the goldens that test the size limits: each takes seconds to reach its limit, and the mutants of such a
  # seed would spend the run there)
  find "$root/machines" "$root/apps" "$root/stdlib" "$root/tests/golden" -name '*.gpm' -size -64k \
    ! -name '*too_large*' ! -name '*too_many*' ! -name '*memory*' ! -name '*too_deep*' \
    -exec cp --backup=numbered -t "$work/seeds" {} + 2>/dev/null || true
  # The dictionary: every quoted literal of the grammar (keywords, punctuation, unit words).
  grep -o "'[^']*'" "$root/grammar/Gpm.g4" | sort -u | sed "s/^'\(.*\)'$/\1/" |
    awk '{ gsub(/\\/, "\\\\"); gsub(/"/, "\\\""); printf "kw%d=\"%s\"\n", NR, $0 }' > "$work/gpm.dict"
  dict=(-dict="$work/gpm.dict")
else
  find "$root/validation" "$root/traces" "$root/tests" -name '*.csv' -size -64k \
    -exec cp --backup=numbered -t "$work/seeds" {} + 2>/dev/null || true
  dict=()
fi
echo "$(basename "$target"): $(ls "$work/seeds" | wc -l) seeds, $seconds s"
status=0
(cd "$work" && "$target" -fork=1 -ignore_timeouts=1 -ignore_ooms=1 -timeout=20 -rss_limit_mb=4096 -max_len=8192 \
  -max_total_time="$seconds" -seed="$seed" -print_final_stats=1 "${dict[@]}" corpus seeds) > "$work/fuzz.log" 2>&1 || status=$?
grep -E "^#[0-9]+.*(DONE|INITED)|exec/s|stat::number_of_executed_units|timeout|out-of-memory" "$work/fuzz.log" | tail -6
if [[ $status != 0 ]] || ls "$work"/crash-* > /dev/null 2>&1; then
  tail -60 "$work/fuzz.log"
  echo "FAILED: a crashing input is in $work (run the target on it to reproduce)"
  exit 1
fi
echo "no crash in $seconds s"
