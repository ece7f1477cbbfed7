#!/usr/bin/env bash
# zsh_completion.sh: the zsh completion script written at build time equals `gpmc completion zsh`, names every
# subcommand of `gpmc --help` and parses in zsh; skipped (exit 77) where zsh is not installed.
# zsh_completion.sh GPMC SCRIPT
set -euo pipefail
gpmc=$1 script=$2
fail() { echo "FAIL: $*"; exit 1; }
[[ -f "$script" ]] || fail "$script was not written by the build"
diff <("$gpmc" completion zsh) "$script" > /dev/null || fail "$script differs from \`gpmc completion zsh\`"
for sub in $("$gpmc" --help | sed -n '/^Subcommands:/,$p' | awk 'NR > 1 && /^  [a-z]/ {print $1}'); do
  grep -q "^        '$sub:" "$script" || fail "subcommand $sub is not offered"
  grep -q "^        $sub)" "$script" || fail "subcommand $sub has no arguments"
done
if ! command -v zsh > /dev/null; then
  echo "skipped: zsh is not installed (the script was compared, not parsed)"
  exit 77
fi
zsh -n "$script" || fail "zsh does not parse $script"
echo "zsh completion: parses, every subcommand offered"
