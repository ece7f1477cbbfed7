#!/usr/bin/env bash
# man_page.sh: the man page help2man wrote at build time has the top-level help, every subcommand's help and the
# environment section; skipped (exit 77) where help2man was not found when the build was configured.
# man_page.sh GPMC MAN_PAGE HELP2MAN
set -euo pipefail
gpmc=$1 page=$2 help2man=${3:-}
fail() { echo "FAIL: $*"; exit 1; }
if [[ -z "$help2man" || "$help2man" == *NOTFOUND ]]; then
  echo "skipped: help2man was not found when the build was configured (apt-get install help2man)"
  exit 77
fi
[[ -f "$page" ]] || fail "$page was not written by the build"
grep -q '^\.TH GPMC "1"' "$page" || fail "no .TH GPMC \"1\" header"
grep -q '^\.SH ENVIRONMENT' "$page" || fail "no ENVIRONMENT section"
grep -q 'GPMC_STDLIB' "$page" || fail "GPMC_STDLIB is not described"
# Every subcommand of `gpmc --help`, and an option of eval, as roff writes it.
for sub in $("$gpmc" --help | sed -n '/^Subcommands:/,$p' | awk 'NR > 1 && /^  [a-z]/ {print $1}'); do
  grep -q "^\.SS \"gpmc $sub\"" "$page" || fail "no section for \`gpmc $sub\`"
done
sed -n '/^\.SS "gpmc eval"/,/^\.SS/p' "$page" | grep -- '--format' > /dev/null ||
  fail "eval's option --format is not in the page"
"$gpmc" --version | grep "$(sed -n 's/^\.TH GPMC "1" "[^"]*" "\(gpmc [0-9.]*\).*/\1/p' "$page")" > /dev/null ||
  fail "the page's version is not gpmc --version's"
echo "man page: $(grep -c '^\.SS' "$page") subcommand sections"
