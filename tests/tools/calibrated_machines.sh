#!/bin/bash
# calibrated_machines.sh CALIBRATE_FIT GPMC ROOT WORK: every machine file under machines/measured/ is what
# calibrate-fit writes from its recorded CSV (named in the file's first line) and launch costs (a `Kernel launch
# costs:` line), in gpmc fmt's layout, and checks.
set -u
fit=$1 gpmc=$2 root=$3 work=$4
cd "$root" || exit 1
rm -rf "$work" && mkdir -p "$work" || exit 1
count=0
for machine in machines/measured/*.gpm; do
  csv=$(sed -n '1s/.* written by tools\/calibrate from \([^ ]*\) (.*/\1/p' "$machine")
  name=$(basename "$machine" .gpm)
  [ -f "$csv" ] || { echo "FAIL: $machine names no recorded CSV that exists (first line)"; exit 1; }
  # The launch costs (kernel_issue), where the file names them.
  launch=$(sed -n 's/^\/\/ Kernel launch costs: \([^ ]*\) (.*/\1/p' "$machine")
  args=()
  if [ -n "$launch" ]; then
    [ -f "$launch" ] || { echo "FAIL: $machine names launch costs $launch, which do not exist"; exit 1; }
    args=(--launch "$launch")
  fi
  "$fit" "$csv" --name "$name" "${args[@]}" -o "$work/$name.gpm" || { echo "FAIL: calibrate-fit $csv"; exit 1; }
  "$gpmc" fmt "$work/$name.gpm" || exit 1
  diff -u "$machine" "$work/$name.gpm" || { echo "FAIL: $machine differs from calibrate-fit's output"; exit 1; }
  "$gpmc" check "$machine" || { echo "FAIL: gpmc check $machine"; exit 1; }
  count=$((count + 1))
done
[ "$count" -ge 1 ] || { echo "FAIL: no machine under machines/measured/"; exit 1; }
# A machine built on a calibrated one (machines/*_measured.gpm, importing measured/NAME.gpm) copies its numbers:
# each `param X = V  // [CAL] Y` must give the calibrated file's value of its parameter Y.
for machine in machines/*_measured.gpm; do
  [ -f "$machine" ] || continue
  source=$(sed -n 's/^import "\(measured\/[^"]*\)".*/machines\/\1/p' "$machine" | head -1)
  [ -f "$source" ] || { echo "FAIL: $machine imports no calibrated machine under machines/measured/"; exit 1; }
  while read -r name value unit calibrated; do
    expected=$(sed -n "s/^ *param $calibrated = \([^ ]*\) \([^ ]*\) .*/\1 \2/p" "$source")
    [ "$expected" = "$value $unit" ] ||
      { echo "FAIL: $machine: $name = $value $unit, but $source has $calibrated = ${expected:-nothing}"; exit 1; }
  done < <(sed -n 's/^ *param \([a-z_0-9]*\) = \([^ ]*\) \([^ ]*\) *\/\/ \[CAL\] \([a-z_0-9]*\).*/\1 \2 \3 \4/p' "$machine")
done
echo "$count calibrated machine files match their recorded CSVs"
