# botocore ships no types: these stubs declare exactly the part reconciler calls
# (reconciler/cluster/adapter/msk_iam.py), so mypy checks those calls.
