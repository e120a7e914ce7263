#!/usr/bin/env bash
# Fails when an #include points against daekit's layer order (docs/architecture.md):
#   core < tableaus < problem < linalg < nonlinear < methods < integrator < problems
# (tableaus: coefficients only, right above core; front ends -- apps/, bench/, python/ -- sit on
# top and are not checked). A file in layer L may include headers of layers at or below L only.
# Layers by folder, for public headers (include/daekit/<layer>/) and for sources and internal
# headers (src/<layer>/); the umbrella include/daekit/daekit.hpp is not in a layer.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

rank() {
  case "$1" in
    core) echo 0 ;;
    tableaus) echo 1 ;;
    problem) echo 2 ;;
    linalg) echo 3 ;;
    nonlinear) echo 4 ;;
    methods) echo 5 ;;
    integrator) echo 6 ;;
    problems) echo 7 ;;
    *) echo "" ;;
  esac
}

status=0
while IFS= read -r file; do
  layer=$(echo "$file" | sed -E 's#^(include/daekit|src)/([^/]+)/.*#\2#')
  mine=$(rank "$layer")
  [[ -n $mine ]] || continue
  while IFS= read -r inc; do
    target=$(echo "$inc" | sed -E 's#^(daekit/)?([^/]+)/.*#\2#')
    theirs=$(rank "$target")
    [[ -n $theirs ]] || continue
    if (( theirs > mine )); then
      echo "layer violation: $file ($layer) includes $inc ($target)" >&2
      status=1
    fi
  done < <(sed -nE 's#^\s*\#include\s+"([^"]+)".*#\1#p' "$file")
done < <(find include/daekit src -name '*.hpp' -o -name '*.cpp' | sort)

if [[ $status -ne 0 ]]; then
  echo "check_layers.sh: includes must point down the layer order (docs/architecture.md)" >&2
  exit 1
fi
echo "check_layers.sh: include layers ok"
