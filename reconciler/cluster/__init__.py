"""Reading (and later changing) a live Kafka cluster; only adapter.py imports a Kafka client."""
