# pytest-xdist ships no types: the part tests/worker_groups.py uses.
