#!/usr/bin/env bash
# Builds daekit's documentation site offline into build/docs/html (front page index.html):
# Doxygen reads the public headers into XML (build/docs/doxygen/xml), Sphinx (with MyST for the
# Markdown pages, breathe for the C++ reference, autodoc for the Python module built into
# build/python) writes the HTML. Nothing is downloaded (docs/about.md: the tools, all Debian's).
# Fails when Sphinx or Doxygen fail or when a page has a broken reference (a Markdown link to a
# page or file that does not exist, an image that is missing, a toctree entry without a page);
# scripts/check_docs_site.py then checks every link of the HTML (the test docs_site).
#
#   bash scripts/docs.sh                 needs a build (build/python for the Python reference;
#                                        DAEKIT_BUILD_DIR=... for another build directory)
# Works from any directory; prints the time it took.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
start=$(date +%s%N)
build=${DAEKIT_BUILD_DIR:-$PWD/build}
out=$build/docs
for tool in doxygen sphinx-build; do
  command -v "$tool" >/dev/null || { echo "docs.sh: $tool not found: run 'bash scripts/setup.sh' as root" >&2; exit 1; }
done
[[ -d "$build/python/daekit" ]] || echo "docs.sh: warning: $build/python/daekit missing (build first): the Python reference will be empty" >&2

mkdir -p "$out/doxygen"
DAEKIT_DOXYGEN_OUT="$out/doxygen" doxygen docs/Doxyfile

rm -f "$out/warnings.log"
DAEKIT_BUILD_DIR="$build" /usr/bin/python3 -m sphinx -b html -E -q -j 1 -d "$out/doctrees" \
  -w "$out/warnings.log" docs "$out/html"
# References that Sphinx only warns about are errors here: they are broken links on the site.
broken='unknown document|undefined label|reference target not found|cross-reference target not found|image file not readable|nonexisting document|Unknown target|failed to import|Cannot find file|duplicate label'
if grep -Ei "$broken" "$out/warnings.log" >&2; then
  echo "docs.sh: broken references (above; all warnings: $out/warnings.log)" >&2
  exit 1
fi
ms=$(( ($(date +%s%N) - start) / 1000000 ))
printf 'docs.sh: site in %s/html/index.html (%s warnings, %d.%d s)\n' "$out" \
  "$(grep -c 'WARNING' "$out/warnings.log" || true)" $((ms / 1000)) $((ms % 1000 / 100))
