"""The spec language: reconciler.yaml and topic files, loaded, rendered and validated."""
