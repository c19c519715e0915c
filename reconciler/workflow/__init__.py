"""The use cases the CLI runs, as functions from inputs to values; the CLI formats and prints.

One module per use case: `context` (the command's spec repository, read once), `connection`
(every connection a command makes: the one importer of the Kafka adapter), `plan`,
`saved_plan` (a plan file read back), `apply`, `drift`, `import_topics`, `fleet` (compile and
the fleet job). Each function takes the command's `Context`, made once by the CLI.
"""
