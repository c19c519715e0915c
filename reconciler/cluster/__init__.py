"""Reading and changing a live Kafka cluster; only the adapter package imports a Kafka client."""
