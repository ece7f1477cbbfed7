#!/usr/bin/env bash
# check_includes.sh: every project #include must point at a layer its folder may use (docs/architecture.md, section 2).
set -euo pipefail
root="${1:-$(cd "$(dirname "$0")/../.." && pwd)}"
cd "$root"

# folder -> the folders its files may include (its own included). Generated parser headers (no folder) are the
# frontend's alone.
declare -A allowed=(
  [support]="support"
  [ir]="ir support"
  [engines]="engines ir support"
  [frontend]="frontend support"
  [lower]="lower frontend engines ir support"
  [backend/interp]="backend/interp ir support"
  [backend/report]="backend/report backend/interp ir support"
  [backend/jit]="backend/jit backend/interp ir support"
  [driver]="driver lower frontend backend engines ir support"
  [validate]="validate driver backend ir support"
  [project]="project validate driver backend ir support"
  [lsp]="lsp driver lower frontend backend engines ir support"
  [tools/gpmc]="tools/gpmc lsp project validate driver lower frontend backend engines ir support"
  [python]="python project validate driver backend engines ir support"
  [tools/calibrate]="tools/calibrate"
  [tools/fuzz]="tools/fuzz tools/calibrate project validate driver lower frontend backend engines ir support"
)
bad=0
checked=0
for folder in "${!allowed[@]}"; do
  [[ -d "$folder" ]] || continue
  while IFS= read -r -d '' file; do
    while IFS= read -r line; do
      target="$(sed -E 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"([^"]+)".*/\1/' <<< "$line")"
      checked=$((checked + 1))
      if [[ "$target" != */* ]]; then
        if [[ "$folder" == frontend && "$target" == Gpm* ]]; then continue; fi
        echo "$file: #include \"$target\": a project include names its folder"; bad=1; continue
      fi
      ok=0
      for layer in ${allowed[$folder]}; do
        if [[ "$target" == "$layer/"* ]]; then ok=1; break; fi
      done
      if [[ $ok == 0 ]]; then
        echo "$file: #include \"$target\": $folder/ may include only: ${allowed[$folder]}"; bad=1
      fi
    done < <(grep -E '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$file" || true)
  done < <(find "$folder" -maxdepth $([[ "$folder" == engines ]] && echo 2 || echo 1) -type f \
             \( -name '*.h' -o -name '*.cpp' -o -name '*.cu' -o -name '*.def' \) -print0)
done
# Every source folder of the compiler is in the table, so a new one cannot escape the check.
for dir in */; do
  dir="${dir%/}"
  case "$dir" in
    support|ir|engines|frontend|lower|backend|driver|validate|project|lsp|python|tools|tests|bench|build*|grammar|stdlib|machines|apps|docs|scripts|traces|validation) ;;
    *) if find "$dir" -maxdepth 2 \( -name '*.cpp' -o -name '*.h' \) | grep . > /dev/null; then
         echo "$dir/: C++ sources in a folder the layer table does not list"; bad=1
       fi ;;
  esac
done
if [[ $bad != 0 ]]; then
  echo "layer check failed"
  exit 1
fi
echo "layers: $checked includes checked, all within their layers"
