"""What reconciler and a Kafka cluster say to each other, as Kafka-free values.

The ports (cluster/ports.py) are written in these and cluster/state.py's; the adapter
(cluster/adapter/) turns them into client-library calls and the answers back into them. Nothing
here imports a Kafka client library (a contract of pyproject.toml, and
tests/test_client_free_imports.py), so apply, the in-memory fake and `validate` use them freely.

    requests.py    what apply asks: NewTopicRequest, ConfigUpdate, PartitionsRequest
    answers.py     what Kafka answers beyond the state: ClusterDescription, Record
    failures.py    a refused item (Failure) and the typed refusals with their sentences:
                   Denied, Unauthenticated, Unsupported
    throttles.py   replication throttles (Moves, Throttle) and the merge rules of their lists
    authorized.py  what each request needs, Kafka's implications, Authorized (KIP-430), `lacks`
    reserved.py    the topics reconciler keeps for itself: the lock and the audit log
    address.py     where a cluster is and who reconciler is there, as sentences name it
"""
