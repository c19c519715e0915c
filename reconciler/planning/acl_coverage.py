"""Which bindings grant a principal an operation on a resource, by Kafka's authorizer rules
(`reconciler help access`, "A revoke that does not revoke"). One pure function the planner
asks, so a revoke's hazard and the warnings about a topic's `access:` agree.

Kafka's rules (AclAuthorizer, StandardAuthorizer): a binding matches a request when its
resource pattern covers the resource (a literal name equal to it, the literal `*` of the
type, or a prefix of its name), its principal is the request's or `User:*`, its host is the
request's or `*`, and its operation is the request's or All; an ALLOW of Read, Write, Delete
or Alter also allows Describe, one of AlterConfigs DescribeConfigs. Any matching DENY beats
every ALLOW.

A request here may itself be a pattern (a revoked prefixed binding): an ALLOW grants it only
when it covers every name the pattern does, and a DENY of any name in it refuses it, so the
answer is never "still granted" for part of a prefix (a DENY of `orders.v1` refuses the
prefix `orders.v1` that an ALLOW of the prefix `orders` covers). Of principals and hosts, a
DENY of one leaves the others' access, as Kafka does for a name.
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
        if b.permission == "deny":
            if b.operation in (request.operation, "All") and _overlaps(b, request):
                return ()
        elif _matches(b, request) and (
            b.operation in (request.operation, "All")
            or b.operation in IMPLIED.get(request.operation, ())
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


def overlaps_pattern(rule: AclBinding, request: AclBinding) -> bool:
    """`rule`'s resource pattern covers at least one resource `request`'s does (same type)."""
    if rule.resource_type != request.resource_type:
        return False
    if _every_name(rule) or _every_name(request):
        return True
    if rule.pattern_type == "literal" and request.pattern_type == "literal":
        return rule.resource_name == request.resource_name
    if rule.pattern_type == "literal":  # a name under the requested prefix
        return rule.resource_name.startswith(request.resource_name)
    if request.pattern_type == "literal":
        return request.resource_name.startswith(rule.resource_name)
    shorter, longer = sorted((rule.resource_name, request.resource_name), key=len)
    return longer.startswith(shorter)


def _every_name(binding: AclBinding) -> bool:
    return binding.pattern_type == "literal" and binding.resource_name == WILDCARD


def _overlaps(rule: AclBinding, request: AclBinding) -> bool:
    """As `_matches`, but the resource pattern need only cover part of the request's: a DENY
    that does refuses the whole request. A DENY from one host or of one principal leaves
    the access of the others (`User:*`, host `*`)."""
    return overlaps_pattern(rule, request) and _same_who(rule, request)


def _matches(rule: AclBinding, request: AclBinding) -> bool:
    """Resource, principal and host match (the operation is judged by the caller)."""
    return covers_pattern(rule, request) and _same_who(rule, request)


def _same_who(rule: AclBinding, request: AclBinding) -> bool:
    """`rule` names the request's principal (or `User:*`) and its host (or `*`)."""
    principal = rule.principal in (request.principal, WILDCARD_PRINCIPAL)
    return principal and rule.host in (request.host, ANY_HOST)
