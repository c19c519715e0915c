"""`fleet drift` over s3a:// URIs, against a local S3-compatible server (moto's server mode on
127.0.0.1): the job resolves the Hadoop S3 connector from Maven Central into the cache, reads
--desired and --snapshots from the bucket, writes its tables, summary.md and report.html there,
and the tables are the local-path run's. The credentials (AWS_* in the environment) appear
nowhere in the output, the JVM's own included (--debug keeps it on the terminal)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pyspark.sql import SparkSession

from reconciler.fleet import job, s3a
from tests.fleet.conftest import LIGHT_CONF, SmallRun

BUCKET = "fleet"

# The tests that run `fleet drift` over s3a:// (a JVM of its own each, which resolves the Hadoop
# S3 connector) are a way teams deploy the job, its data in an object store: `make compat` runs
# them (docs/testing.md); the connector's settings, pure Python, stay in `make test`.
OBJECT_STORE = pytest.mark.matrix
_UNSIGNED = (
    "AWS4-HMAC-SHA256 Credential=test/20261126/us-east-1/s3/aws4_request, "
    "SignedHeaders=host, Signature=0"
)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def call(method: str, url: str, body: bytes | None = None) -> bytes:
    # moto checks no signature, but serves an object only to a request that names a key;
    # (urllib's default type for a body, a form, would have the server parse it as one)
    headers = {"Authorization": _UNSIGNED}
    if body is not None:
        headers["Content-Type"] = "application/octet-stream"
    request = urllib.request.Request(url, data=body, method=method, headers=headers)
    with urllib.request.urlopen(request, timeout=30) as answer:
        data: bytes = answer.read()
        return data


@pytest.fixture(scope="module")
def s3(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """moto's S3 server on a free loopback port (its endpoint URL), stopped by its pid."""
    port = free_port()
    log = tmp_path_factory.mktemp("moto") / "moto.log"
    with log.open("wb") as output:
        server = subprocess.Popen(
            [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
            stdout=output, stderr=subprocess.STDOUT,
        )  # fmt: skip
    endpoint = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while True:  # until it answers an S3 request
            try:
                call("GET", f"{endpoint}/")
                break
            except (urllib.error.URLError, ConnectionError):
                if server.poll() is not None or time.monotonic() > deadline:
                    pytest.fail(f"moto's server did not start: {log.read_text()[-2000:]}")
                time.sleep(0.2)
        yield endpoint
    finally:
        server.terminate()
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


def upload(endpoint: str, local: Path, prefix: str) -> int:
    count = 0
    for path in sorted(p for p in local.rglob("*") if p.is_file()):
        key = f"{prefix}/{path.relative_to(local).as_posix()}"
        call("PUT", f"{endpoint}/{BUCKET}/{urllib.parse.quote(key)}", path.read_bytes())
        count += 1
    return count


def download(endpoint: str, prefix: str, target: Path) -> list[str]:
    """Every object under `prefix` into `target` (ListObjectsV2, page by page); their keys."""
    keys: list[str] = []
    token: str | None = None
    ns = {"s3": "http://s3.amazonaws.com/doc/2006-03-01/"}
    while True:
        query = {"list-type": "2", "prefix": f"{prefix}/"}
        if token:
            query["continuation-token"] = token
        listing = ET.fromstring(call("GET", f"{endpoint}/{BUCKET}?{urllib.parse.urlencode(query)}"))
        keys += [e.text or "" for e in listing.findall("s3:Contents/s3:Key", ns)]
        token = listing.findtext("s3:NextContinuationToken", namespaces=ns)
        if not token:
            break
    for key in keys:
        if key.endswith("/"):  # a directory marker
            continue
        local = target / key.removeprefix(f"{prefix}/")
        local.parent.mkdir(parents=True, exist_ok=True)
        local.write_bytes(call("GET", f"{endpoint}/{BUCKET}/{urllib.parse.quote(key)}"))
    return keys


def reconciler(
    s3: str, args: list[str], env: dict[str, str], timeout: int = 600
) -> subprocess.CompletedProcess[str]:
    """The installed `reconciler` with `args`, its S3A settings pointing at the local server."""
    command = Path(sys.executable).parent / "reconciler"
    endpoint = [
        "--conf", f"spark.hadoop.fs.s3a.endpoint={s3}",
        "--conf", "spark.hadoop.fs.s3a.path.style.access=true",
        "--conf", "spark.hadoop.fs.s3a.endpoint.region=us-east-1",
    ]  # fmt: skip
    return subprocess.run(
        [str(command), *args, *endpoint],
        env=env, capture_output=True, text=True, timeout=timeout, check=False,
    )  # fmt: skip


def table(spark: SparkSession, out: Path, name: str) -> list[tuple[Any, ...]]:
    return sorted(tuple(str(v) for v in r) for r in spark.read.parquet(str(out / name)).collect())


@OBJECT_STORE
def test_fleet_drift_reads_and_writes_s3a_and_writes_the_local_runs_tables(
    spark: SparkSession, small_run: SmallRun, s3: str, tmp_path: Path
) -> None:
    call("PUT", f"{s3}/{BUCKET}")
    assert upload(s3, small_run.desired, "desired") > 0
    assert upload(s3, small_run.snapshots, "snapshots") > 0
    key_id, secret = f"AKIA{uuid.uuid4().hex[:16].upper()}", f"secret-{uuid.uuid4().hex}"
    env = {
        **os.environ,
        "AWS_ACCESS_KEY_ID": key_id,
        "AWS_SECRET_ACCESS_KEY": secret,
        "AWS_REGION": "us-east-1",
    }
    done = reconciler(
        s3,
        ["--debug", "fleet", "drift",
         "--desired", f"s3a://{BUCKET}/desired", "--snapshots", f"s3a://{BUCKET}/snapshots",
         "--out", f"s3a://{BUCKET}/out", "--master", "local[2]",
         "--conf", "spark.sql.shuffle.partitions=4", *LIGHT_CONF],
        env, timeout=900,
    )  # fmt: skip
    output = done.stdout + done.stderr
    assert done.returncode == 0, output[-4000:]
    assert f"wrote s3a://{BUCKET}/out/report.html" in done.stdout
    assert secret not in output and key_id not in output  # the JVM's log is in `output` too

    remote = tmp_path / "remote"
    keys = download(s3, "out", remote)
    for name in job.TABLES:
        assert any(k.startswith(f"out/{name}/") and k.endswith(".parquet") for k in keys), name
        assert table(spark, remote, name) == table(spark, small_run.out, name), name
    # the page is drawn from the tables alone: the same tables give the same page
    local_page = (small_run.out / "report.html").read_text(encoding="utf-8")
    assert (remote / "report.html").read_text(encoding="utf-8") == local_page
    assert (remote / "summary.md").read_text(encoding="utf-8").startswith("# Fleet drift")


@OBJECT_STORE
def test_a_missing_s3a_input_is_one_sentence_naming_it(
    small_run: SmallRun, s3: str, tmp_path: Path
) -> None:
    call("PUT", f"{s3}/{BUCKET}")
    env = {**os.environ, "AWS_ACCESS_KEY_ID": "id", "AWS_SECRET_ACCESS_KEY": "key"}
    done = reconciler(
        s3,
        ["fleet", "drift", "--desired", f"s3a://{BUCKET}/nothing-here",
         "--snapshots", str(small_run.snapshots), "--out", str(tmp_path / "out"),
         "--master", "local[1]"],
        env,
    )  # fmt: skip
    assert done.returncode == 1, done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    assert f"--desired s3a://{BUCKET}/nothing-here is not a directory" in done.stderr
    assert not (tmp_path / "out").exists()


@OBJECT_STORE
def test_an_s3a_out_in_a_missing_bucket_is_one_sentence_before_the_inputs_are_read(
    small_run: SmallRun, s3: str
) -> None:
    """The probe write (storage.check_output, which job.run calls before reading its inputs)
    fails, naming the URI and the missing bucket: no Java trace, no credentials."""
    missing = f"no-such-bucket-{uuid.uuid4().hex[:12]}"
    key_id, secret = f"AKIA{uuid.uuid4().hex[:16].upper()}", f"secret-{uuid.uuid4().hex}"
    env = {**os.environ, "AWS_ACCESS_KEY_ID": key_id, "AWS_SECRET_ACCESS_KEY": secret}
    done = reconciler(
        s3,
        ["fleet", "drift", "--desired", str(small_run.desired),
         "--snapshots", str(small_run.snapshots), "--out", f"s3a://{missing}/out",
         "--master", "local[1]"],
        env,
    )  # fmt: skip
    output = done.stdout + done.stderr
    assert done.returncode == 1, output[-4000:]
    last = done.stderr.strip().splitlines()[-1]
    assert last == (
        f"error: --out s3a://{missing}/out is not writable: the bucket {missing} does not "
        "exist; create it, or name another --out"
    ), output[-4000:]
    assert "Traceback" not in output and "Py4JJavaError" not in output
    assert secret not in output and key_id not in output


@pytest.mark.parametrize(
    ("paths", "conf", "added"),
    [
        (("/d", "/s", "/o"), {}, False),  # no s3a:// path: nothing added
        (("s3a://b/d", "/s", "/o"), {}, True),
        (("/d", "/s", "s3a://b/o"), {}, True),
        # the caller brought the connector: theirs is kept as it is
        (("s3a://b/d", "/s", "/o"), {"spark.jars.packages": "org.apache.hadoop:hadoop-aws:3.5.0"},
         False),
        (("s3a://b/d", "/s", "/o"), {"spark.jars": "/opt/jars/hadoop-aws-3.5.0.jar"}, False),
    ],
)  # fmt: skip
def test_the_connector_is_added_only_where_needed(
    paths: tuple[str, ...], conf: dict[str, str], added: bool, tmp_path: Path
) -> None:
    settings = s3a.settings(paths, conf, tmp_path)
    assert bool(settings) is added
    if added:
        hadoop = s3a.bundled_hadoop()
        assert hadoop is not None
        assert settings["spark.jars.packages"].startswith(f"{s3a.HADOOP_AWS}:{hadoop}")
        assert settings["spark.jars.ivy"] == str(tmp_path / "ivy")
        if hadoop in s3a.SDK_FOR_HADOOP:  # the SDK's modules, not its 686 MB bundle
            assert settings["spark.jars.excludes"] == s3a.SDK_BUNDLE


def test_the_callers_own_packages_are_kept_beside_the_connector(tmp_path: Path) -> None:
    conf = {"spark.jars.packages": "org.example:extra:1.0", "spark.jars.ivy": "/srv/ivy"}
    settings = s3a.settings(("s3a://b/d",), conf, tmp_path)
    assert settings["spark.jars.packages"].startswith("org.example:extra:1.0,")
    assert s3a.HADOOP_AWS in settings["spark.jars.packages"]
    assert settings["spark.jars.ivy"] == "/srv/ivy"
