"""What apply checks before it changes anything."""
