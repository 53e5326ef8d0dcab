#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# libmltcp.so exports mltcp.h's four functions, under its version node, and
# nothing of mltcpctl's code inside it; its soname is libmltcp.so.0.
# Usage: abi_test.sh LIBRARY
set -euo pipefail
lib=$1
exported=$(nm -D --defined-only --format=posix "$lib" | awk '{ print $1 }' | sort | tr '\n' ' ')
want="MLTCP_0 mltcp_error@@MLTCP_0 mltcp_mark@@MLTCP_0 mltcp_marker_close@@MLTCP_0 mltcp_marker_open@@MLTCP_0 "
if [[ $exported != "$want" ]]; then
	echo "libmltcp exports: $exported" >&2
	echo "expected:         $want" >&2
	exit 1
fi
soname=$(objdump -p "$lib" | awk '$1 == "SONAME" { print $2 }')
[[ $soname == libmltcp.so.0 ]] || { echo "soname: $soname, expected libmltcp.so.0" >&2; exit 1; }
