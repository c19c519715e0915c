"""Sending the plan's changes, level by level, and judging what the cluster shows."""
