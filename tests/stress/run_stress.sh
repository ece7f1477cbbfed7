#!/usr/bin/env bash
# run_stress.sh: hostile inputs generated at test time: each must end with the expected exit status and
# diagnostic kind, never by a signal or a hang. Usage: run_stress.sh GPMC WORKDIR
set -u
gpmc=$(realpath "$1")
work=$2
mkdir -p "$work"
cd "$work" || exit 1
failures=0

# expect STATUS KIND FILE_DESCRIPTION -- gpmc arguments...
expect() {
  local want_status=$1 want_kind=$2 what=$3
  shift 4
  timeout 120 "$gpmc" "$@" >stdout.txt 2>stderr.txt
  local status=$?
  if [ "$status" -ne "$want_status" ]; then
    echo "FAIL $what: exit status $status, expected $want_status"; head -c 600 stderr.txt; failures=$((failures + 1))
  elif [ -n "$want_kind" ] && ! grep -q "\[$want_kind\]" stderr.txt; then
    echo "FAIL $what: no [$want_kind] diagnostic"; head -c 600 stderr.txt; failures=$((failures + 1))
  else
    echo "ok   $what"
  fi
}

# 100,000 nested parentheses.
{ printf 'param x = '; head -c 100000 /dev/zero | tr '\0' '('; printf '1'; head -c 100000 /dev/zero | tr '\0' ')'; echo; } > nested_parens.gpm
expect 1 NestingTooDeep "100,000 nested parentheses" -- check nested_parens.gpm

# 100,000 prefix minus signs.
{ printf 'param x = '; for _ in $(seq 1000); do printf -- '- - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - '; done; echo '1'; } > nested_minus.gpm
expect 1 NestingTooDeep "100,000 prefix minus signs" -- check nested_minus.gpm

# 5,000 nested if expressions in one statement.
{ printf 'param x = '; for _ in $(seq 5000); do printf 'if 1 < 2 then 1 else '; done; echo '1'; } > nested_if.gpm
expect 1 NestingTooDeep "5,000 nested if expressions" -- check nested_if.gpm

# 100,000 nested blocks.
{ echo 'app a {'; head -c 100000 /dev/zero | tr '\0' 's' | sed 's/s/seq {/g'; head -c 100000 /dev/zero | tr '\0' '}'; echo '}'; } > nested_blocks.gpm
expect 1 NestingTooDeep "100,000 nested blocks" -- check nested_blocks.gpm

# A sum of 300,000 terms is valid: chains are flat, never deep.
{ printf 'param x = 1'; for _ in $(seq 3000); do printf ' + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1'; done; echo; } > long_sum.gpm
expect 0 "" "a sum of 300,001 terms" -- check long_sum.gpm

# A 50 MB file.
{ echo 'param x = 1'; head -c 52428800 /dev/zero | tr '\0' ' '; } > big.gpm
expect 1 FileTooLarge "a 50 MB file" -- check big.gpm

# Random binary bytes.
head -c 65536 /dev/urandom > garbage.gpm
expect 1 "" "64 KiB of random bytes" -- check garbage.gpm

# A directory and a missing file on the command line.
mkdir -p a_directory.gpm
expect 1 FileNotFound "a directory given as a file" -- check a_directory.gpm
expect 1 FileNotFound "a nonexistent file" -- check no_such_file.gpm

# A FIFO that nobody writes to would block the open for ever: it is refused before it is opened, with or without
# a writer, and so is a character device.
rm -f fifo.gpm && mkfifo fifo.gpm
expect 1 FileNotFound "a FIFO without a writer" -- check fifo.gpm
( timeout 60 bash -c ": > fifo.gpm" ) &
expect 1 FileNotFound "a FIFO with a writer" -- check fifo.gpm
kill %1 2>/dev/null; wait
expect 1 FileNotFound "a character device" -- check /dev/null

# A chain of 2,700,000 `^-1` links (8.1 MB, under the size limit) nests one parser level per link: refused by the
# nesting guard, not by the stack. The same for 100,000 `== not` links.
{ printf 'param x = 2'; head -c 2700000 /dev/zero | tr '\0' 'p' | sed 's/p/^-1/g'; echo; } > power_chain.gpm
expect 1 NestingTooDeep "2,700,000 links of ^-1" -- check power_chain.gpm
{ printf 'param x = if true'; for _ in $(seq 10000); do printf ' == not true == not true == not true == not true == not true == not true == not true == not true == not true == not true'; done; echo ' then 1 else 2'; } > not_chain.gpm
expect 1 NestingTooDeep "100,000 links of == not" -- check not_chain.gpm

# A table's file is read like a source file: a FIFO, a device, random bytes, a 50 MB file and a row of 1,000,000
# cells end with a diagnostic, not a hang or a crash.
echo 'table t = "fifo.gpm"' > table_fifo.gpm
expect 1 FileNotFound "a table naming a FIFO" -- check table_fifo.gpm
echo 'table t = "/dev/zero"' > table_device.gpm
expect 1 FileNotFound "a table naming a character device" -- check table_device.gpm
echo 'table t = "garbage.gpm"' > table_garbage.gpm
expect 1 "" "a table of random bytes" -- check table_garbage.gpm
echo 'table t = "big.gpm"' > table_big.gpm
expect 1 FileTooLarge "a table of 50 MB" -- check table_big.gpm
{ head -c 1000000 /dev/zero | tr '\0' '7' | sed 's/7/7,/g'; echo 7; } > wide.csv
printf 'table t = "wide.csv"\nparam x = t(0, 999999) * 1 B\n' > table_wide.gpm
expect 0 "" "a table row of 1,000,001 cells" -- check table_wide.gpm

if [ "$failures" -ne 0 ]; then echo "$failures stress case(s) failed"; exit 1; fi
echo "all stress cases passed"
