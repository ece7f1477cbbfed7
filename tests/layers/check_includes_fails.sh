#!/usr/bin/env bash
# check_includes_fails.sh: the layer check rejects an include that crosses the layers (so its pass means something).
set -euo pipefail
script="$(cd "$(dirname "$0")" && pwd)/check_includes.sh"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/support" "$work/ir" "$work/frontend"
printf '#include "support/units.h"\n' > "$work/ir/ok.h"
printf '#include "frontend/ast.h"\n' > "$work/ir/bad.h"
if out="$(bash "$script" "$work" 2>&1)"; then
  echo "the check passed a tree where ir/ includes frontend/:"; echo "$out"; exit 1
fi
grep -q 'ir/bad.h: #include "frontend/ast.h"' <<< "$out" || { echo "unexpected message:"; echo "$out"; exit 1; }
grep -q 'ir/ok.h' <<< "$out" && { echo "a good include was reported:"; echo "$out"; exit 1; }
mkdir -p "$work/newlayer"; printf 'int x;\n' > "$work/newlayer/x.cpp"; rm "$work/ir/bad.h"
if out="$(bash "$script" "$work" 2>&1)"; then echo "an unlisted source folder passed"; exit 1; fi
grep -q 'newlayer/: C++ sources' <<< "$out" || { echo "unexpected message:"; echo "$out"; exit 1; }
echo "the layer check rejects a crossing include and an unlisted folder"
