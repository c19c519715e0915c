"""What an apply did, recorded: the audit record, its journal, results and interrupted applies."""
