"""Which bindings grant a principal an operation on a resource, by Kafka's authorizer rules
(`reconciler help access`, "A revoke that does not revoke"). One pure function the planner
asks, so a revoke's hazard and the warnings about a topic's `access:` agree.

Kafka's rules (AclAuthorizer, StandardAuthorizer): a binding matches a request when its
resource pattern covers the resource (a literal name equal to it, the literal `*` of the
type, or a prefix of its name), its principal is the request's or `User:*`, its host is the
request's or `*`, and its operation is the request's or All; an ALLOW of Read, Write, Delete
or Alter also allows Describe, one of AlterConfigs DescribeConfigs. Any matching DENY beats
every ALLOW.

A request here may itself be a pattern (a revoked prefixed binding): a binding covers it
only when it covers every name the pattern does, so the answer is never "still granted" for
part of a prefix.
"""

from __future__ import annotations

from collections.abc import Iterable

from reconciler.cluster.protocol.acls import ANY_HOST, WILDCARD, AclBinding
from reconciler.cluster.protocol.authorized import IMPLIED

WILDCARD_PRINCIPAL = "User:" + WILDCARD


def granting(request: AclBinding, bindings: Iterable[AclBinding]) -> tuple[AclBinding, ...]:
    """The ALLOW bindings among `bindings` that grant `request`'s principal its operation on
    its resource from its host (`request`'s permission is not read), sorted; () when none does
    or a DENY among them refuses it."""
    found: list[AclBinding] = []
    for b in bindings:
        if not _matches(b, request):
            continue
        if b.permission == "deny":
            if b.operation in (request.operation, "All"):
                return ()
        elif b.operation in (request.operation, "All") or b.operation in IMPLIED.get(
            request.operation, ()
        ):
            found.append(b)
    return tuple(sorted(found))


def covers_pattern(rule: AclBinding, request: AclBinding) -> bool:
    """`rule`'s resource pattern covers every resource `request`'s does (same type)."""
    if rule.resource_type != request.resource_type:
        return False
    if rule.pattern_type == "literal":
        if rule.resource_name == WILDCARD:
            return True
        return request.pattern_type == "literal" and rule.resource_name == request.resource_name
    if request.pattern_type == "literal" and request.resource_name == WILDCARD:
        return False  # `*` is every name, not one a prefix starts
    # a prefix covers a literal name under it, or a longer (or equal) prefix
    return request.resource_name.startswith(rule.resource_name)


def _matches(rule: AclBinding, request: AclBinding) -> bool:
    """Resource, principal and host match (the operation is judged by the caller)."""
    return (
        covers_pattern(rule, request)
        and rule.principal in (request.principal, WILDCARD_PRINCIPAL)
        and rule.host in (request.host, ANY_HOST)
    )
