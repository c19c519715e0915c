"""The JSON Schema of a topic's `access:` (`reconciler help access`), for spec/schema_gen.py.

Shapes only: a principal's `Type:name` form, one entry per principal and a transactional
producer being idempotent are the R8xx rules of spec/access.py, with their own sentences.
"""

from __future__ import annotations

from typing import Any

Schema = dict[str, Any]

_PRINCIPAL: Schema = {
    "description": "Kafka's principal, `Type:name`, as the brokers' principal builder makes it: "
    "`User:NAME` for a SASL or OAuth login, `User:CN=...` for mutual TLS; `User:*` is every "
    "principal.",
    "type": "string",
    "minLength": 1,
    "examples": ["User:billing"],
}


def _names(what: str, example: str) -> Schema:
    return {
        "description": what,
        "type": "array",
        "items": {"type": "string", "minLength": 1},
        "uniqueItems": True,
        "examples": [[example]],
    }


def access_field() -> Schema:
    """The schema of `access:` (a topic's, or a file's `defaults:`)."""
    producer: Schema = {
        "description": "A principal that writes the topic: Write on it, and what its kind of "
        "producer needs besides (`reconciler help access`).",
        "type": "object",
        "additionalProperties": False,
        "required": ["principal"],
        "properties": {
            "principal": _PRINCIPAL,
            "idempotent": {
                "description": "True (default: Java producers are idempotent since Kafka 3.0): "
                "brokers before Kafka 2.8 also need IdempotentWrite on the cluster.",
                "type": "boolean",
                "default": True,
            },
            "transactional_ids": _names(
                "The transactional ids it uses (Write on each TransactionalId).", "orders-tx-1"
            ),
            "transactional_id_prefixes": _names(
                "Prefixes of the transactional ids it uses (a PREFIXED TransactionalId pattern).",
                "orders-tx-",
            ),
        },
    }
    consumer: Schema = {
        "description": "A principal that reads the topic: Read on it, and Read on each group "
        "it consumes in (none: it assigns partitions itself and commits no offsets).",
        "type": "object",
        "additionalProperties": False,
        "required": ["principal"],
        "properties": {
            "principal": _PRINCIPAL,
            "groups": _names("The consumer groups it reads in (Read on each Group).", "billing"),
            "group_prefixes": _names(
                "Prefixes of its consumer groups (a PREFIXED Group pattern).", "billing-"
            ),
        },
    }
    return {
        "description": "Who may produce to and consume from this topic; reconciler derives "
        "the ACLs (`help access`). Present, even empty, means every literal ACL on the topic "
        "is managed: one the spec does not derive is revoked. A topic's own access replaces "
        "the defaults' as a whole.",
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "producers": {
                "description": "The principals that write the topic.",
                "type": "array",
                "items": producer,
            },
            "consumers": {
                "description": "The principals that read the topic.",
                "type": "array",
                "items": consumer,
            },
        },
        "examples": [
            {
                "producers": [{"principal": "User:orders-api"}],
                "consumers": [{"principal": "User:billing", "groups": ["billing"]}],
            }
        ],
    }


_OPERATIONS = ("All", "Read", "Write", "Create", "Delete", "Alter", "Describe", "ClusterAction",
               "DescribeConfigs", "AlterConfigs", "IdempotentWrite")  # fmt: skip


def acls_field() -> Schema:
    """The schema of a topic file's `acls:`: raw bindings (spec/raw_acls.py)."""
    entry: Schema = {
        "description": "One raw ACL binding per operation: the principal may (allow) or may "
        "not (deny) do each operation on the resource pattern (`reconciler help access`).",
        "type": "object",
        "additionalProperties": False,
        "required": ["principal", "resource", "operations"],
        "properties": {
            "principal": _PRINCIPAL,
            "resource": {
                "description": "Kafka's resource pattern: its type, name and pattern type.",
                "type": "object",
                "additionalProperties": False,
                "required": ["type"],
                # every resource but the cluster (whose one name is implied) is named
                "if": {
                    "properties": {
                        "type": {"description": "Not the cluster.", "not": {"const": "cluster"}}
                    }
                },
                "then": {"required": ["name"]},
                "properties": {
                    "type": {
                        "description": "The resource type; `cluster`'s name is always "
                        "`kafka-cluster`.",
                        "enum": ["topic", "group", "cluster", "transactional_id"],
                    },
                    "name": {
                        "description": "The resource name (`*`: every resource of the type); "
                        "for a prefixed pattern, the prefix.",
                        "type": "string",
                        "minLength": 1,
                    },
                    "pattern": {
                        "description": "literal (default): the one name; prefixed: every name "
                        "starting with it.",
                        "enum": ["literal", "prefixed"],
                        "default": "literal",
                    },
                },
            },
            "operations": {
                "description": "Kafka's operation names.",
                "type": "array",
                "minItems": 1,
                "uniqueItems": True,
                "items": {"enum": list(_OPERATIONS)},
            },
            "permission": {
                "description": "allow (default) or deny: a DENY wins over every ALLOW.",
                "enum": ["allow", "deny"],
                "default": "allow",
            },
            "host": {
                "description": "The client's IP address the binding applies to (`*`: any).",
                "type": "string",
                "minLength": 1,
                "default": "*",
            },
            "clusters": {
                "description": "The clusters the binding is for (default: every cluster).",
                "type": "array",
                "minItems": 1,
                "items": {"type": "string", "minLength": 1},
                "uniqueItems": True,
            },
        },
    }
    return {
        "description": "Raw ACL bindings, for what a topic's `access:` does not derive: "
        "prefixed patterns, group, cluster and transactional-id resources, DENY rules. "
        "Declaring it makes the cluster's ACLs within policy.manage managed: a binding no "
        "spec gives is revoked (`reconciler help access`).",
        "type": "array",
        "items": entry,
        "examples": [
            [
                {
                    "principal": "User:orders-streams",
                    "resource": {"type": "topic", "name": "orders-streams-", "pattern": "prefixed"},
                    "operations": ["All"],
                }
            ]
        ],
    }
