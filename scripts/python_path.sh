#!/usr/bin/env bash
# Registers the Python module built in build/python with the system interpreter, so that
# `/usr/bin/python3 -c "import daekit"` works after scripts/demo.sh or scripts/test.sh: a .pth
# file (daekit-build.pth) in the site directory of /usr/bin/python3 naming build/python. Without
# write access it prints the PYTHONPATH to use instead (and succeeds). Run by demo.sh and test.sh.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
python=/usr/bin/python3
dir="$PWD/build/python"
if [[ ! -d "$dir/daekit" ]] || ! ls "$dir"/daekit/_daekit*.so >/dev/null 2>&1; then
  echo "python_path.sh: no Python module in $dir (DAEKIT_BUILD_PYTHON=OFF?): nothing to register"
  exit 0
fi
site=$("$python" -c "import site; print(site.getsitepackages()[0])")
if mkdir -p "$site" 2>/dev/null && echo "$dir" > "$site/daekit-build.pth" 2>/dev/null; then
  echo "python_path.sh: $python imports daekit from $dir ($site/daekit-build.pth)"
else
  echo "python_path.sh: cannot write to $site; use PYTHONPATH=$dir $python"
fi
