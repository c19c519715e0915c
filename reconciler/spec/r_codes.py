"""The table of the spec language's rules: every diagnostic `validate` gives, by code.

Each rule has a stable code and a snake_case name, listed here (`RULES`) and in
`reconciler help diagnostics` with an example and what to do:

    R0xx  files and YAML safety          R4xx  duplicates, dependencies, clusters
    R1xx  topic configs (the catalog)    R5xx  reconciler.yaml
    R2xx  topic names                    R6xx  Jinja2 templates
    R3xx  partitions, replication,       R7xx  JSON Schema
          assignments, tombstones        R8xx  access (`access:`, `quotas:`,
                                               `users:`)

The checks that use them live with what they check: source.py, discovery.py and the YAML
reader (files), configs.py (the catalog), kafka_rules.py (Kafka's rules for one topic),
cross_file.py (duplicates, collisions, dependencies), repo_config.py, templates.py,
schema.py, access.py, quotas.py and scram_users.py.
"""

from __future__ import annotations

from reconciler.diagnostics import Rule, Severity

_E, _W = Severity.ERROR, Severity.WARNING

# R0xx: files and YAML safety
YAML_SYNTAX = Rule("R001", "yaml_syntax", _E)
DUPLICATE_KEY = Rule("R002", "duplicate_key", _E)
ALIAS_LIMIT = Rule("R003", "alias_limit", _E)
FILE_TOO_LARGE = Rule("R004", "file_too_large", _E)
BINARY_FILE = Rule("R005", "binary_file", _E)
NOT_UTF8 = Rule("R006", "not_utf8", _E)
SYMLINK_ESCAPE = Rule("R007", "symlink_escape", _E)
UNREADABLE_FILE = Rule("R008", "unreadable_file", _E)
EMPTY_FILE = Rule("R009", "empty_file", _W)
UNSUPPORTED_TAG = Rule("R010", "unsupported_yaml_tag", _E)
NESTING_TOO_DEEP = Rule("R011", "nesting_too_deep", _E)
COMPLEX_KEY = Rule("R012", "complex_key", _E)
IGNORED_FILE = Rule("R013", "ignored_file", _W)
MULTIPLE_DOCUMENTS = Rule("R014", "multiple_documents", _E)
YAML_1_1_DIFFERENCE = Rule("R015", "yaml_1_1_difference", _W)
NUMBER_TOO_LARGE = Rule("R016", "number_too_large", _E)

# R1xx: topic configs
INVALID_CONFIG_VALUE = Rule("R101", "invalid_config_value", _E)
REMOVED_CONFIG = Rule("R102", "removed_config", _E)
MIN_INSYNC_REPLICAS = Rule("R103", "min_insync_replicas", _E)
UNKNOWN_CONFIG = Rule("R105", "unknown_config", _E)
# A key under a Kafka-compatible service's prefix (vendors.py): the cluster decides at plan time
VENDOR_CONFIG = Rule("R106", "vendor_config", _W)

# R2xx: topic names
ILLEGAL_TOPIC_NAME = Rule("R201", "illegal_topic_name", _E)
TOPIC_NAME_TOO_LONG = Rule("R202", "topic_name_too_long", _E)
DOT_TOPIC_NAME = Rule("R203", "dot_topic_name", _E)
TOPIC_NAME_COLLISION = Rule("R204", "topic_name_collision", _E)
INTERNAL_TOPIC_NAME = Rule("R205", "internal_topic_name", _E)

# R3xx: partitions, replication factor, manual assignments, tombstones
INVALID_PARTITIONS = Rule("R301", "invalid_partitions", _E)
INVALID_REPLICATION_FACTOR = Rule("R302", "invalid_replication_factor", _E)
ASSIGNMENT_PARTITION_COUNT = Rule("R303", "assignment_partition_count", _E)
ASSIGNMENT_EMPTY = Rule("R304", "assignment_empty", _E)
ASSIGNMENT_REPLICATION_FACTOR = Rule("R305", "assignment_replication_factor", _E)
ASSIGNMENT_DUPLICATE_BROKER = Rule("R306", "assignment_duplicate_broker", _E)
ASSIGNMENT_NEGATIVE_BROKER = Rule("R307", "assignment_negative_broker", _E)
TOMBSTONE_FIELDS = Rule("R308", "tombstone_fields", _W)
PROTECTED_TOMBSTONE = Rule("R309", "protected_tombstone", _E)
# An approval is of one topic's change: under `defaults:` it would approve it on every topic
ACKNOWLEDGE_IN_DEFAULTS = Rule("R310", "acknowledge_in_defaults", _E)

# R4xx: duplicates, dependencies, clusters
DUPLICATE_TOPIC = Rule("R401", "duplicate_topic", _E)
UNKNOWN_DEPENDENCY = Rule("R402", "unknown_dependency", _E)
SELF_DEPENDENCY = Rule("R403", "self_dependency", _E)
DEPENDENCY_CYCLE = Rule("R404", "dependency_cycle", _E)
UNKNOWN_CLUSTER = Rule("R405", "unknown_cluster", _E)
DEPENDENCY_ON_TOMBSTONE = Rule("R406", "dependency_on_tombstone", _W)

# R5xx: reconciler.yaml
MISSING_REPO_CONFIG = Rule("R501", "missing_repo_config", _E)
UNDEFINED_ENV_VAR = Rule("R502", "undefined_env_var", _E)
INVALID_REGEX = Rule("R503", "invalid_regex", _E)
INVALID_TOPICS_DIR = Rule("R504", "invalid_topics_dir", _E)
INVALID_ENV_REFERENCE = Rule("R505", "invalid_env_reference", _E)
EMPTY_BOOTSTRAP = Rule("R506", "empty_bootstrap", _E)
INVALID_BOOTSTRAP = Rule("R507", "invalid_bootstrap", _E)
PATTERN_TOO_SLOW = Rule("R508", "pattern_too_slow", _E)
LITERAL_SECRET = Rule("R509", "literal_secret", _W)
SECRET_IN_CLEAR = Rule("R510", "secret_in_clear", _W)

# R6xx: templates
TEMPLATE_SYNTAX = Rule("R601", "template_syntax", _E)
TEMPLATE_UNDEFINED = Rule("R602", "template_undefined", _E)
TEMPLATE_SECURITY = Rule("R603", "template_security", _E)
TEMPLATE_ERROR = Rule("R604", "template_error", _E)
TEMPLATE_OUTPUT_TOO_LARGE = Rule("R605", "template_output_too_large", _E)
TEMPLATE_TIMEOUT = Rule("R606", "template_timeout", _E)
TEMPLATE_MEMORY = Rule("R607", "template_memory", _E)

# R7xx: JSON Schema
SCHEMA_TYPE = Rule("R701", "schema_type", _E)
SCHEMA_REQUIRED = Rule("R702", "schema_required", _E)
SCHEMA_UNKNOWN_FIELD = Rule("R703", "schema_unknown_field", _E)
SCHEMA_ENUM = Rule("R704", "schema_enum", _E)
SCHEMA_CONSTRAINT = Rule("R705", "schema_constraint", _E)

# R8xx: access (spec/access.py)
INVALID_PRINCIPAL = Rule("R801", "invalid_principal", _E)
DUPLICATE_PRINCIPAL = Rule("R802", "duplicate_principal", _E)
TRANSACTIONAL_NOT_IDEMPOTENT = Rule("R803", "transactional_not_idempotent", _E)
# a cluster's `quotas:` (spec/quotas.py)
QUOTA_WITHOUT_ENTITY = Rule("R804", "quota_without_entity", _E)
DUPLICATE_QUOTA_ENTITY = Rule("R805", "duplicate_quota_entity", _E)
# a topic file's raw `acls:` (spec/raw_acls.py); from R810, so the slices of issue 42 built
# side by side keep apart
CLUSTER_RESOURCE_NAME = Rule("R810", "cluster_resource_name", _E)
DUPLICATE_ACL = Rule("R811", "duplicate_acl", _E)
# a cluster's `users:` (spec/scram_users.py); R810-R811 are raw `acls:`
USER_PASSWORD_NOT_VARIABLE = Rule("R812", "user_password_not_variable", _E)
DUPLICATE_USER = Rule("R813", "duplicate_user", _E)

# Every rule above, in code order (`reconciler help diagnostics` lists each; a test keeps them in
# step).
RULES: tuple[Rule, ...] = tuple(v for v in globals().values() if isinstance(v, Rule))
