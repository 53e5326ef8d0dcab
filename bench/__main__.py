# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
import sys

from bench.cli import main

sys.exit(main())
