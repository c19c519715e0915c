"""Request counting for tests: see reconciler/local/request_log.py."""

from reconciler.local.request_log import requests_by

__all__ = ["requests_by"]
