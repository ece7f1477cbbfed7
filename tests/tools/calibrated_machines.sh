#!/bin/bash
# calibrated_machines.sh CALIBRATE_FIT GPMC ROOT WORK: every machine file under machines/measured/ is what
# calibrate-fit writes from its recorded CSV (named in the file's first line), in gpmc fmt's layout, and checks.
set -u
fit=$1 gpmc=$2 root=$3 work=$4
cd "$root" || exit 1
rm -rf "$work" && mkdir -p "$work" || exit 1
count=0
for machine in machines/measured/*.gpm; do
  csv=$(sed -n '1s/.* written by tools\/calibrate from \([^ ]*\) (.*/\1/p' "$machine")
  name=$(basename "$machine" .gpm)
  [ -f "$csv" ] || { echo "FAIL: $machine names no recorded CSV that exists (first line)"; exit 1; }
  "$fit" "$csv" --name "$name" -o "$work/$name.gpm" || { echo "FAIL: calibrate-fit $csv"; exit 1; }
  "$gpmc" fmt "$work/$name.gpm" || exit 1
  diff -u "$machine" "$work/$name.gpm" || { echo "FAIL: $machine differs from calibrate-fit's output"; exit 1; }
  "$gpmc" check "$machine" || { echo "FAIL: gpmc check $machine"; exit 1; }
  count=$((count + 1))
done
[ "$count" -ge 1 ] || { echo "FAIL: no machine under machines/measured/"; exit 1; }
echo "$count calibrated machine files match their recorded CSVs"
