"""A librdkafka admin client is never freed on its own thread (reconciler.gcpause).

The hazard is real: an admin client held only by a reference cycle, with a request of its own
in flight, is collected on its background thread (which allocates as it builds the answer) and
librdkafka aborts the process. No broker is needed: the request's failure against a closed port
is an answer built on that thread too. Each case runs in a child process, since the failure is an
abort."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

# Three rounds of: a request in flight, its client dropped into a cycle, and a collection
# threshold of one allocation, so the next allocation (the background thread's) collects
ROUNDS = """
import gc, time
for _ in range(3):
    admin = make()
    future = admin.list_consumer_groups(request_timeout=0.5)
    holder = {"admin": admin}
    holder["self"] = holder
    del admin, holder
    gc.set_threshold(1)
    time.sleep(1.5)
    gc.set_threshold(700)
    after_round()
print("survived")
"""


def _run(setup: str) -> subprocess.CompletedProcess[str]:
    code = textwrap.dedent(setup) + ROUNDS
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False
    )


def test_without_the_pause_librdkafka_aborts_the_process() -> None:
    """The mechanism's reason: a bare client in a cycle takes the process down."""
    done = _run(
        """
        from confluent_kafka.admin import AdminClient
        def make():
            return AdminClient({"bootstrap.servers": "127.0.0.1:1", "log_level": 0})
        def after_round():
            pass
        """
    )
    assert done.returncode != 0 and "survived" not in done.stdout
    assert "librdkafka owned thread" in done.stderr


@pytest.mark.slow  # about 5 s waiting for librdkafka threads (`make check` skips it)
def test_the_adapters_clients_survive_and_the_collector_resumes() -> None:
    """Clients made as the adapter makes them: collected on the main thread when let go, and
    the collector on again once the last is gone."""
    done = _run(
        """
        import gc
        from reconciler import gcpause
        from reconciler.cluster.adapter.connect import Connection, librdkafka_admin
        def make():
            return librdkafka_admin(Connection("t", "127.0.0.1:1"))
        def after_round():
            assert not gc.isenabled() and gcpause.live_clients() == 1
            gcpause.collect_stragglers()
            assert gc.isenabled() and gcpause.live_clients() == 0
        """
    )
    assert (done.returncode, done.stdout.strip()) == (0, "survived"), done.stderr


@pytest.mark.parametrize("cycle", [False, True])
def test_a_clusters_close_frees_its_client_on_the_closing_thread(cycle: bool) -> None:
    """Cluster.close lets go of its admin client; one a cycle still holds is collected there."""
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(f"""
            import gc, threading, weakref
            from reconciler import gcpause
            from reconciler.cluster.adapter import Cluster, Connection
            freed_on = []
            cluster = Cluster(Connection("t", "127.0.0.1:1"))
            admin = cluster._admin()
            weakref.finalize(admin, lambda: freed_on.append(threading.get_ident()))
            if {cycle}:
                holder = {{"admin": admin}}
                holder["self"] = holder
                del holder
            del admin
            assert not gc.isenabled()
            cluster.close()
            assert freed_on == [threading.get_ident()], freed_on
            assert gc.isenabled() and gcpause.live_clients() == 0
            print("ok")
        """)],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert (done.returncode, done.stdout.strip()) == (0, "ok"), done.stderr


@pytest.mark.parametrize("cycle", [False, True])
def test_a_close_while_an_exception_holds_the_client_leaves_it_for_later(cycle: bool) -> None:
    """A Cluster left by an exception whose frames hold its admin client: no collection then
    (none could free it); once the exception is dropped the client is freed on this thread,
    by reference counting, or, held by a cycle, by the next Cluster's close."""
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(f"""
            import gc, threading, weakref
            from reconciler import gcpause
            from reconciler.cluster.adapter import Cluster, Connection
            freed_on, collections = [], []
            gc.callbacks.append(lambda phase, info: phase == "start" and collections.append(info))
            def fail(cluster):
                admin = cluster._admin()
                weakref.finalize(admin, lambda: freed_on.append(threading.get_ident()))
                if {cycle}:
                    holder = {{"admin": admin}}
                    holder["self"] = holder
                raise RuntimeError("a failed call")
            try:
                with Cluster(Connection("t", "127.0.0.1:1")) as cluster:
                    fail(cluster)
            except RuntimeError:
                assert collections == [], collections
            if {cycle}:
                assert freed_on == [] and gcpause.pending()
                Cluster(Connection("t", "127.0.0.1:1")).close()
                assert collections, "the next close collected nothing"
            else:
                assert collections == []
            assert freed_on == [threading.get_ident()], freed_on
            assert gc.isenabled() and gcpause.live_clients() == 0 and not gcpause.pending()
            print("ok")
        """)],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert (done.returncode, done.stdout.strip()) == (0, "ok"), done.stderr
