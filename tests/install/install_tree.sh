#!/usr/bin/env bash
# install_tree.sh: `cmake --install` into a fresh prefix; the installed gpmc then evaluates the installed models from
# another folder without GPMC_STDLIB, reading the installed standard library, and again once the prefix is moved; so
# does the installed Python module, where it was built, and the installed gpmc under mpirun, where MPI was found.
# install_tree.sh CMAKE BUILD_DIR SOURCE_DIR WORK_DIR GPMC (the build tree's, for the expected first line) [PYTHON]
set -euo pipefail
cmake=$1 build=$2 source=$3 work=$4 gpmc=$5 python=${6:-}
rm -rf "$work"
mkdir -p "$work"
unset GPMC_STDLIB
fail() { echo "FAIL: $*"; exit 1; }

# The first line the build tree's gpmc prints for the source tree's models: `jacobi2d on summit: TIME`.
reference=$(cd "$source" && "$gpmc" eval machines/summit.gpm apps/jacobi2d.gpm)
first_line=$(head -1 <<< "$reference")
[[ "$first_line" =~ ^"jacobi2d on summit: "[0-9.]+" "[mu]?s$ ]] || fail "the build tree's gpmc printed: $first_line"

"$cmake" --install "$build" --prefix "$work/prefix" > "$work/install.log" ||
  { cat "$work/install.log"; fail "cmake --install"; }

# The bytes the JSON report's provenance gives for stdlib/roofline.gpm (the standard library file gpmc read).
roofline_bytes() {
  python3 -c 'import json, sys
print(next(i["bytes"] for i in json.load(sys.stdin)["provenance"]["inputs"] if i["path"] == "stdlib/roofline.gpm"))'
}

check_prefix() {
  local prefix=$1
  for f in bin/gpmc share/gpmc/stdlib/roofline.gpm share/gpmc/stdlib/project/host_copy.gpm \
           share/gpmc/machines/summit.gpm share/gpmc/machines/parts/k80.gpm share/gpmc/apps/jacobi2d.gpm \
           share/gpmc/editors/README.md share/gpmc/editors/vim/syntax/gpm.vim \
           share/gpmc/editors/vscode/syntaxes/gpm.tmLanguage.json \
           share/bash-completion/completions/gpmc share/zsh/site-functions/_gpmc; do
    [[ -f "$prefix/$f" ]] || fail "$prefix/$f was not installed"
  done
  [[ -x "$prefix/bin/gpmc" ]] || fail "$prefix/bin/gpmc is not executable"
  local out status=0
  out=$(cd / && "$prefix/bin/gpmc" eval "$prefix/share/gpmc/machines/summit.gpm" \
        "$prefix/share/gpmc/apps/jacobi2d.gpm" 2>&1) || status=$?
  [[ $status -eq 0 ]] || fail "installed gpmc eval exited with $status: $out"
  [[ "$(head -1 <<< "$out")" == "$first_line" ]] || fail "first line: $(head -1 <<< "$out")"
  # The installed standard library is the one read, not the source tree's: its roofline.gpm is made longer here.
  local installed_bytes expected
  expected=$(( $(wc -c < "$source/stdlib/roofline.gpm") + 18 ))
  [[ $(wc -c < "$prefix/share/gpmc/stdlib/roofline.gpm") -eq $expected ]] ||
    echo "// installed copy" >> "$prefix/share/gpmc/stdlib/roofline.gpm"
  installed_bytes=$(cd / && "$prefix/bin/gpmc" eval "$prefix/share/gpmc/machines/summit.gpm" \
                    "$prefix/share/gpmc/apps/jacobi2d.gpm" --format json | roofline_bytes)
  [[ $installed_bytes -eq $expected ]] ||
    fail "a stdlib/roofline.gpm of $installed_bytes bytes was read, not the installed one ($expected)"
  # GPMC_STDLIB still comes first.
  [[ $(cd / && GPMC_STDLIB="$source/stdlib" "$prefix/bin/gpmc" eval "$prefix/share/gpmc/machines/summit.gpm" \
       "$prefix/share/gpmc/apps/jacobi2d.gpm" --format json | roofline_bytes) -eq $(( expected - 18 )) ]] ||
    fail "GPMC_STDLIB was not the standard library read"
  check_python "$prefix"
  check_mpi "$prefix"
}

# The MPI plugin (docs/mpi.md), where the build has it: installed under lib/gpmc, where the installed gpmc finds it
# under mpirun (when mpirun is here too) and writes what it writes alone.
check_mpi() {
  local prefix=$1 alone split
  [[ -f "$build/gpmc_mpi.so" ]] || return 0
  [[ -f "$prefix/lib/gpmc/gpmc_mpi.so" ]] || fail "$prefix/lib/gpmc/gpmc_mpi.so was not installed"
  command -v mpirun > /dev/null || return 0
  local args=(sweep "$prefix/share/gpmc/machines/summit.gpm" "$prefix/share/gpmc/apps/jacobi2d.gpm"
              --vary n=1024:8192:1024)
  alone=$(cd / && "$prefix/bin/gpmc" "${args[@]}") || fail "installed gpmc sweep"
  # The rows are compared; stderr is shown on failure (Open MPI's runtime may add its own `[warn]` lines there).
  split=$(cd / && OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
          ASAN_OPTIONS="detect_leaks=0:${ASAN_OPTIONS:-}" \
          mpirun -q --oversubscribe -np 2 "$prefix/bin/gpmc" "${args[@]}" 2> "$work/mpirun.err") ||
    fail "installed gpmc under mpirun -np 2: $(cat "$work/mpirun.err")"
  [[ "$split" == "$alone" ]] || fail "installed gpmc under mpirun -np 2 wrote other rows: $(cat "$work/mpirun.err")"
}

# The Python package (docs/python.md): always installed; the module where the build has it, evaluating the installed
# models with the installed standard library, the same total as the installed gpmc.
check_python() {
  local prefix=$1 site
  site=$(cd "$prefix" && ls -d lib/python*/site-packages 2>/dev/null | head -1)
  [[ -n "$site" && -f "$prefix/$site/gpmc/__init__.py" && -f "$prefix/$site/gpmc/plot.py" ]] ||
    fail "the Python package was not installed under $prefix/lib/python*/site-packages/gpmc"
  compgen -G "$build/python/gpmc/_core*.so" > /dev/null && [[ -n "$python" ]] || return 0
  compgen -G "$prefix/$site/gpmc/_core*.so" > /dev/null || fail "the Python module _core was not installed"
  local out expected
  out=$(cd / && PYTHONPATH="$prefix/$site" "$python" -c 'import gpmc, sys
print(gpmc.stdlib_dir())
print(gpmc.eval(sys.argv[1] + "/machines/summit.gpm", sys.argv[1] + "/apps/jacobi2d.gpm")["total_s"])' \
        "$prefix/share/gpmc") || fail "the installed Python module failed: $out"
  [[ "$(head -1 <<< "$out")" == "$(cd "$prefix" && pwd -P)/share/gpmc/stdlib" ]] ||
    fail "the installed module reads the standard library $(head -1 <<< "$out")"
  expected=$(cd / && "$prefix/bin/gpmc" eval "$prefix/share/gpmc/machines/summit.gpm" \
             "$prefix/share/gpmc/apps/jacobi2d.gpm" --format json | "$python" -c 'import json, sys
print(json.load(sys.stdin)["total_s"])')
  [[ "$(tail -1 <<< "$out")" == "$expected" ]] || fail "the installed module's total $(tail -1 <<< "$out") != $expected"
}

check_prefix "$work/prefix"
mv "$work/prefix" "$work/moved"
check_prefix "$work/moved"
echo "installed into $work/prefix and moved to $work/moved: both evaluate with their own standard library" \
     "(the Python module too, where it was built)"
