#!/usr/bin/env bash
# `make demo`: what reconciler is for, on a real local three-broker Kafka cluster.
#
#   1. validate the example specs; start the cluster
#   2. plan, apply, plan again: no changes
#   3. a reviewed edit: a partition increase on a keyed topic (key_reorder hazard) and a new
#      topic that crosses a KIP-578 per-broker limit -> the plan refuses (exit 1, expected)
#   4. a change made behind git's back -> `reconciler drift` reports it (exit 2, expected)
#
# The edits happen in a temporary copy: the example repository is left as it was found.
# The cluster keeps running for you to explore; `.venv/bin/reconciler local down` stops it.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
BIN=${BIN:-$ROOT/.venv/bin}
R="$BIN/reconciler"

if [ -t 2 ] && [ -z "${NO_COLOR:-}" ]; then bold=$'\033[1m' plain=$'\033[0m'; else bold="" plain=""; fi
step() { printf '\n%s==> %s%s\n' "$bold" "$*" "$plain" >&2; }
expect() {  # expect CODE command...: run it, show its exit code, fail the demo on any other
  local want=$1; shift
  set +e; "$@"; local got=$?; set -e
  printf '(exit %s, expected %s)\n' "$got" "$want" >&2
  [ "$got" -eq "$want" ] || { echo "demo: '$*' exited $got, expected $want" >&2; exit 1; }
}

step "validate the example specs"
"$R" validate
step "start a local three-broker Kafka cluster (racks a, b, c)"
# KAFKA_VERSION=2.8.2 make demo: another release (ZooKeeper mode before 3.9, docs/compatibility.md)
"$R" local status >/dev/null 2>&1 ||   # reuse one already running
  "$R" local up --brokers 3 ${KAFKA_VERSION:+--kafka-version "$KAFKA_VERSION"}
"$R" local status
KAFKA_BOOTSTRAP="$("$R" local status | sed -n 's/^bootstrap: //p')"
export KAFKA_BOOTSTRAP

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp reconciler.yaml "$work/"
cp -r topics "$work/"
cd "$work"

step "plan, apply, plan again"
"$R" plan --cluster local
"$R" apply --cluster local --auto-approve
expect 0 "$R" plan --cluster local --detailed-exitcode

step "a reviewed edit: grow payments.orders.v1 from 6 to 12 partitions, add a 30-partition topic"
"$R" plan --cluster local --format json > before.json
"$BIN/python" - <<'PY'
import json, pathlib
load = json.load(open("before.json"))["broker_load"]
limit = max(row["current"] for row in load) + 20   # room for 20 more replicas per broker
config = pathlib.Path("reconciler.yaml")
text = config.read_text()
assert "max_broker_partitions: 4000" in text
config.write_text(text.replace("max_broker_partitions: 4000", f"max_broker_partitions: {limit}", 1))
payments = pathlib.Path("topics/payments.yaml")
text = payments.read_text()
assert "    partitions: 6\n    keyed: true\n    protect: true" in text
payments.write_text(text.replace("    partitions: 6\n    keyed: true\n    protect: true",
                                 "    partitions: 12\n    keyed: true\n    protect: true", 1))
pathlib.Path("topics/burst.yaml").write_text(
    "topics:\n  - name: payments.burst.v1\n    partitions: 30\n    replication_factor: 3\n")
print(f"limits.max_broker_partitions of cluster 'local' lowered to {limit} for this demo")
PY
expect 1 "$R" plan --cluster local

step "a change made outside git: retention of inventory.stock-levels.v1 set to 1 hour"
"$BIN/python" - <<'PY'
import os
from confluent_kafka.admin import AdminClient, AlterConfigOpType, ConfigEntry, ConfigResource
admin = AdminClient({"bootstrap.servers": os.environ["KAFKA_BOOTSTRAP"]})
entry = ConfigEntry("retention.ms", "3600000", incremental_operation=AlterConfigOpType.SET)
resource = ConfigResource(ConfigResource.Type.TOPIC, "inventory.stock-levels.v1",
                          incremental_configs=[entry])
for future in admin.incremental_alter_configs([resource]).values():
    future.result()
PY
# Back to the applied specs (the refused edit was never merged), then the scheduled job's view.
cp "$ROOT/reconciler.yaml" reconciler.yaml && rm -rf topics && cp -r "$ROOT/topics" topics
for _ in $(seq 20); do  # brokers apply config changes from the controller asynchronously
  set +e; "$R" drift --cluster local >/dev/null 2>&1; code=$?; set -e
  [ "$code" -eq 0 ] || break
  sleep 0.5
done
expect 2 "$R" drift --cluster local

step "done: the cluster is still running; stop it with: $R local down"
