"""The logger every librdkafka client a test makes is given.

Without one, librdkafka writes its own lines to the process's stderr: a test's client still
alive when a test stops its broker printed `%3|...|FAIL|rdkafka#producer-1095| ... Connect to
127.0.0.1:13497 failed` into `make test`'s output. Through this logger the lines go where
pytest captures logging, shown with the test that made them if it fails
(tests/test_quiet_clients.py checks every client in tests/ is given it).
"""

from __future__ import annotations

import logging

QUIET_LIBRDKAFKA = logging.getLogger("tests.librdkafka")
