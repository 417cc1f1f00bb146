#!/usr/bin/env bash
# The API reference: Doxygen over the installed headers (docs/Doxyfile),
# every warning an error. Writes the HTML to DIR (default: a temporary
# directory, removed after), and exits non-zero on a warning.
#
#   scripts/check-docs.sh [DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
command -v doxygen >/dev/null || { echo "check-docs: doxygen is missing (scripts/install-deps.sh installs it)" >&2; exit 2; }
out=${1:-}
if [ -z "$out" ]; then
  out=$(mktemp -d "${TMPDIR:-/tmp}/tagop-docs.XXXXXX")
  trap 'rm -rf "$out"' EXIT
fi
mkdir -p "$out"
TAGOP_DOCS_OUT=$out doxygen docs/Doxyfile
echo "check-docs: no Doxygen warnings ($(find "$out/html" -name '*.html' | wc -l) pages)"
