#!/usr/bin/env bash
# determinism.sh: the same inputs give byte-identical output: every shipped machine/app pair, as a table
# and as JSON, evaluated twice. A pair that fails (an app naming GPUs the machine lacks) must fail identically, and
# every app must evaluate on at least one machine. Usage: determinism.sh GPMC REPO_ROOT
set -u
gpmc=$(realpath "$1")
cd "$2" || exit 1
failures=0
declare -A evaluated
for machine in machines/*.gpm; do
  for app in apps/*.gpm; do
    for format in table json; do
      first=$("$gpmc" eval "$machine" "$app" --format "$format" 2>&1; echo "exit $?")
      second=$("$gpmc" eval "$machine" "$app" --format "$format" 2>&1; echo "exit $?")
      if [ "$first" != "$second" ]; then
        echo "FAIL $machine $app --format $format: two runs differ"
        failures=$((failures + 1))
      elif [ "${first##*exit }" != "0" ]; then
        echo "ok   $machine $app --format $format (exit ${first##*exit } both times)"
      else
        echo "ok   $machine $app --format $format"
        evaluated[$app]=1
      fi
    done
  done
done
for app in apps/*.gpm; do
  if [ -z "${evaluated[$app]:-}" ]; then
    echo "FAIL $app evaluates on no shipped machine"
    failures=$((failures + 1))
  fi
done
exit $((failures > 0))
