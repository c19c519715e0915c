"""Reading the plain (not templated) topic files: each parsed and read once, for every cluster.

A large repository's files are shared between this process and a forked child on the other core
(render_limits.start, the templates' machinery: the same limits apply), and the child's results
come back pickled, file by file. Parsing is pure CPU in Python, so on a 2-core machine this is
what brings `validate` of 10,000 topics under a second; the results are the same and in the same
order either way (tests/spec/test_plain_files.py). A file whose child stopped is read here.
"""

from __future__ import annotations

import os
from collections.abc import Collection, Sequence

from reconciler.spec import render_limits
from reconciler.spec.source import Source
from reconciler.spec.topic_reader import FileRead, read_topic_file
from reconciler.spec.yaml_reader import parse_yaml

# Below this many files, one process: a fork and the pickling cost more than they save.
SPLIT_MIN_FILES = 16
# The child's share of the files: a little under half, as the templates' child shares its core.
CHILD_SHARE = 0.45

FileResult = FileRead


def read_file(source: Source, known_clusters: Collection[str] | None) -> FileResult:
    """One plain file's topics, problems (syntax, schema, per-topic rules) and `acls:`."""
    doc, problems = parse_yaml(source.text, source.rel)
    if doc is None:
        return [], problems, None
    topics, more, acls = read_topic_file(doc, known_clusters)
    return topics, problems + more, acls


def read_all(
    sources: Sequence[Source], known_clusters: Collection[str] | None, split: bool = True
) -> list[FileResult]:
    """Every file's result, in the order of `sources`."""
    if not split or len(sources) < SPLIT_MIN_FILES or not hasattr(os, "fork"):
        return [read_file(source, known_clusters) for source in sources]
    cut = len(sources) - int(len(sources) * CHILD_SHARE)
    theirs = render_limits.start(
        sources[cut:],
        lambda source: read_file(source, known_clusters),
        lambda source, _why: read_file(source, known_clusters),  # stopped: read it here
    )
    try:
        mine = [read_file(source, known_clusters) for source in sources[:cut]]
    except BaseException:
        theirs.cancel()
        raise
    return mine + theirs.results()
