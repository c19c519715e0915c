"""The spec language: reconciler.yaml and topic files, loaded, rendered and validated.

loader.py       load_repo: the repository, for one cluster or all (its docstring lists the steps)
repo_config.py  reconciler.yaml: clusters, env expansion, policy and limits
discovery.py    which files are topic files (topics/**/*.yaml, *.yaml.j2)
source.py       one file's text, or why it is not a spec file (size, encoding, symlinks)
templates.py    Jinja2 templates rendered per cluster, lines mapped back
render_limits.py  the child process rendering runs in, under CPU, memory and wall-clock limits
yaml_reader.py  safe YAML with locations (parse_yaml, YamlDocument)
yaml_builder.py   its engine: parser events to data and positions, with depth and alias budgets
yaml_scalars.py   YAML 1.2 core-schema scalars, and what YAML 1.1 would read (R015)
yaml_writer.py  the YAML the tool writes (import), quoted where YAML 1.2 would misread it
schema.py       JSON Schema checks with locations; schema_gen.py generates topics.schema.json
topic_reader.py one topic file's topics: defaults merged, fields read, per-topic rules run
configs.py      a config map through the catalog (catalog.py: Kafka's topic configs; units.py)
kafka_rules.py  Kafka's rules for one topic (names, counts, assignments, tombstones)
cross_file.py   rules across files: duplicates, collisions, dependencies, cycles
r_codes.py        the table of R codes; model.py the frozen results (TopicSpec, Presence, ...)
"""
