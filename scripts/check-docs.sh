#!/usr/bin/env bash
# The API reference: Doxygen over the installed headers (docs/Doxyfile),
# every warning an error. Writes the HTML to DIR (default: a temporary
# directory, removed after), and exits non-zero on a warning. Then counts
# the public members without documentation, which must not pass the
# ceiling in docs/undocumented-ceiling (lower it as they fall).
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

# A second pass that only warns of undocumented members (no output).
{ cat docs/Doxyfile
  printf '%s\n' "EXTRACT_ALL = NO" "WARN_IF_UNDOCUMENTED = YES" "WARN_AS_ERROR = NO" "GENERATE_HTML = NO" \
    "GENERATE_LATEX = NO" "WARN_LOGFILE = $out/undocumented.log"; } | TAGOP_DOCS_OUT=$out doxygen - >/dev/null 2>&1
undocumented=$(grep -c "is not documented" "$out/undocumented.log" || true)
ceiling=$(sed -n 's/^\([0-9][0-9]*\).*/\1/p' docs/undocumented-ceiling | head -1)
echo "check-docs: $undocumented public members undocumented (ceiling $ceiling)"
if [ "$undocumented" -gt "$ceiling" ]; then
  echo "check-docs: more undocumented members than docs/undocumented-ceiling allows; the newest:" >&2
  grep "is not documented" "$out/undocumented.log" | head -20 >&2 || true
  exit 1
fi
