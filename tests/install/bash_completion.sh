#!/usr/bin/env bash
# bash_completion.sh: the bash completion script written at build time equals `gpmc completion bash`, and sourced in
# bash it completes subcommands, the options of a subcommand and the values of an option checked against a set.
# bash_completion.sh GPMC SCRIPT
# (No `grep -q` after a pipe: it stops reading at the first match, and under pipefail the writer's SIGPIPE would fail
# the check now and then.)
set -euo pipefail
gpmc=$1 script=$2
fail() { echo "FAIL: $*"; exit 1; }
[[ -f "$script" ]] || fail "$script was not written by the build"
diff <("$gpmc" completion bash) "$script" > /dev/null || fail "$script differs from \`gpmc completion bash\`"

# shellcheck source=/dev/null
source "$script"
complete -p gpmc | grep -- "-F _gpmc" > /dev/null || fail "sourcing $script does not register _gpmc for gpmc"

# The completions bash would offer for the command line "$@", the last word being the one completed.
completions() {
  COMP_WORDS=("$@")
  COMP_CWORD=$(( $# - 1 ))
  COMP_LINE="$*"
  COMP_POINT=${#COMP_LINE}
  COMPREPLY=()
  _gpmc || true
  printf '%s\n' "${COMPREPLY[@]}"
}
expect() {  # expect WORD COMMAND-LINE...: WORD is among the completions
  local word=$1
  shift
  completions "$@" | grep -x -- "$word" > /dev/null || fail "\`$*\` completes to [$(completions "$@" | tr '\n' ' ')], not $word"
}

[[ "$(completions gpmc ev)" == "eval" ]] || fail "\`gpmc ev\` completes to [$(completions gpmc ev)], not eval"
expect --format gpmc eval --f
expect --flows-out gpmc eval --f
expect --backend gpmc eval machines/summit.gpm --
expect json gpmc eval --format ""
expect json gpmc eval --format =  # `--format=`: the word completed is the `=`
expect table gpmc eval --format = t  # bash splits `--format=t` at the `=`
expect interp gpmc sweep --backend i
expect --vary gpmc sweep --v
expect --measured gpmc validate --m
expect project gpmc pro
expect fmt gpmc fm
expect --check gpmc fmt --c
expect --version gpmc --v
# No suggestion where a file is expected (bash then completes file names, `complete -o default`).
[[ -z "$(completions gpmc eval "")" ]] || fail "\`gpmc eval\` suggests words where a file is expected"
[[ -z "$(completions gpmc eval --timeline "")" ]] || fail "\`--timeline\` suggests words where a file is expected"
# The hidden subcommand is not offered.
completions gpmc "" | grep -x completion > /dev/null && fail "the hidden subcommand \`completion\` is offered"
echo "bash completion: subcommands, options and option values complete"
