"""A real Apache Kafka (KRaft) cluster on this machine, assembled from Maven Central jars.

Backs `reconciler local up|status|down`, the demo and the test suite's fixtures: the same code
starts the brokers everywhere, so what the tests prove is what a user runs.
"""
