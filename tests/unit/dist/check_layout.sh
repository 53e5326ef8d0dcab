#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The README's layout list matches the tree: every top-level folder that
# holds a tracked file is listed, and every folder listed exists; likewise
# the folders of tests/ that the "tests/" entry names. Files inside may move;
# the folders are what a newcomer looks for.
#
# The list is the indented block under "## Layout": one entry a line,
# "    NAME/   what it holds", continuation lines indented further; the
# tests/ entry names its folders as "unit/, datapath/, ...".
#
#   check_layout.sh [TOP]     (TOP: the checkout, default: three folders up)
set -uo pipefail

top=${1:-$(cd "$(dirname "$0")/../../.." && pwd)}
readme=$top/README.md
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

[[ -r $readme ]] || { echo "FAIL: no $readme"; exit 1; }

# The tree's files, relative to TOP: git's list where TOP is a checkout
# (untracked build trees do not count), else every file but build trees.
if git -C "$top" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	files=$(git -C "$top" ls-files)
else
	files=$(cd "$top" && find . -path ./.git -prune -o -path './build*' -prune \
		-o -type f -print | sed 's|^\./||')
fi
[[ -n $files ]] || { echo "FAIL: no files found under $top"; exit 1; }

tree_top=$(awk -F/ 'NF > 1 { print $1 }' <<<"$files" | sort -u)
tree_tests=$(awk -F/ '$1 == "tests" && NF > 2 { print $2 }' <<<"$files" | sort -u)

# The layout block: from "## Layout" to the next heading, indented lines only.
block=$(awk '/^## Layout[[:space:]]*$/ { on = 1; next } on && /^#/ { exit }
	on && /^    / { print }' "$readme")
[[ -n $block ]] || { echo "FAIL: README.md has no \"## Layout\" block"; exit 1; }

listed_top=$(sed -n 's|^    \([A-Za-z0-9._-][A-Za-z0-9._-]*\)/[[:space:]].*|\1|p' <<<"$block" | sort -u)
# The tests/ entry and its continuation lines, up to the next entry.
listed_tests=$(awk '/^    [^ ]/ { on = ($1 == "tests/") } on' <<<"$block" |
	sed 's|^    tests/||' | grep -o '[A-Za-z0-9._-]*/' | tr -d / | sort -u)

[[ -n $listed_top ]] || fail "no entries found in README.md's layout block"
[[ -n $listed_tests ]] || fail "the layout's tests/ entry names no folders"

# Each of the lines of $1 not among the lines of $2 fails with $3, its %s the line.
each_missing() {
	local d
	while read -r d; do
		[[ -n $d ]] || continue
		grep -qxF -- "$d" <<<"$2" || fail "$(printf "$3" "$d")"
	done <<<"$1"
}
each_missing "$tree_top" "$listed_top" "README.md's layout does not list %s/"
each_missing "$listed_top" "$tree_top" "README.md's layout lists %s/, which the tree does not have"
each_missing "$tree_tests" "$listed_tests" "README.md's layout does not list tests/%s/"
each_missing "$listed_tests" "$tree_tests" "README.md's layout lists tests/%s/, which the tree does not have"

if ((fails)); then
	echo "$fails layout mismatch(es); the list is README.md's \"## Layout\""
	exit 1
fi
echo "layout: $(wc -l <<<"$listed_top") top-level and $(wc -l <<<"$listed_tests") tests/ folders match the tree"
