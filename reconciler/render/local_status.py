"""What `reconciler local status` prints: its JSON document (schemas/local-status.schema.json,
made by cli/local_commands.py from the running cluster) as lines for people."""

from __future__ import annotations

from typing import Any


def status_lines(document: dict[str, Any]) -> list[str]:
    """The text of `local status` from its JSON document (the one `--format json` prints)."""
    lines = [f"bootstrap: {document['bootstrap']}"]
    controller = document["controller"]
    if controller["kind"] == "kraft_voter":
        shown = f"node {controller['node']} (KRaft voter)"
    else:
        elected = f"node {controller['node']}" if controller["node"] else "none"
        shown = f"{elected} (elected; ZooKeeper at {controller['zookeeper'] or 'none'})"
    lines.append(
        f"kafka: {document['kafka_version']}  cluster id: {document['cluster_id']}  "
        f"controller: {shown}"
    )
    lines.append("brokers:")
    for node in document["nodes"]:
        if node["state"] == "down":
            cause = node["died_of"]
            health = f"  DOWN (died of {cause})" if cause else "  DOWN (no process)"
        elif node["state"] == "not_registered":
            health = "  NOT REGISTERED (process alive, not in DescribeCluster)"
        else:
            health = ""
        lines.append(
            f"  {node['id']}  {node['address']}  rack={node['rack'] or '-'}  "
            f"roles={','.join(node['roles'])}  pid={node['pid'] or '-'}{health}"
        )
    for sidecar in document["sidecars"]:
        health = "" if sidecar["running"] else "  DOWN (no process)"
        lines.append(
            f"{sidecar['name']}: {sidecar['address']}  pid={sidecar['pid'] or '-'}{health}"
        )
    lines += document["security"]["description"]
    return lines
