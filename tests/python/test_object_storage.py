"""Shard datasets in object storage, against a real S3 server: moto in server mode on
127.0.0.1 at a free port, with its request authentication on (a wrong secret is refused
with 403, so the SigV4 signature is real). `segfeed pack`'s shards uploaded with boto3
stream the batches of the same shards read locally and of their folders: whole, by rank,
resumed, from the CLI; over a plain HTTP server too. A fault proxy between segfeed and the
server answers 503 and 500, resets connections, cuts bodies short and sends wrong bytes:
retries give the same batches; exhausted retries are a bad sample named by URL (skip) or
the stream's error (fail). No secret appears in any message or state."""

from __future__ import annotations

import contextlib
import http.client
import http.server
import json
import os
import pathlib
import socket
import ssl
import struct
import subprocess
import sys
import threading
import time

import pytest
import segfeed

from bench_digest import batch_digest

# scripts/dev.sh installs both into the test venv and into the venv of the
# installed wheel's check (check_wheel: these then read through the wheel's
# own libcurl); the bare-root check (scripts/wheel-check.sh) has neither and
# skips these.
boto3 = pytest.importorskip("boto3")
pytest.importorskip("moto.server")

OPTIONS = dict(batch_size=3, size=(32, 40), seed=5, threads=2)
SECRET = "s3cr3t-Never-Printed-9f2c"
BUCKET = "segfeed-data"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for_port(port: int, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=1):
            return
        time.sleep(0.1)
    raise RuntimeError(f"nothing listens on 127.0.0.1:{port}")


@pytest.fixture(scope="module")
def moto_server():
    """moto's S3 on 127.0.0.1 with IAM authentication on after the first requests, which
    make the user whose keys the tests sign with."""
    port = free_port()
    env = {**os.environ, "INITIAL_NO_AUTH_ACTION_COUNT": "3"}
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_PROFILE"):
        env.pop(name, None)
    server = subprocess.Popen([sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
                              env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_for_port(port)
        endpoint = f"http://127.0.0.1:{port}"
        iam = boto3.client("iam", endpoint_url=endpoint, region_name="us-east-1",
                           aws_access_key_id="bootstrap", aws_secret_access_key="bootstrap")
        iam.create_user(UserName="trainer")
        iam.put_user_policy(UserName="trainer", PolicyName="s3", PolicyDocument=json.dumps({
            "Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "s3:*", "Resource": "*"}]}))
        key = iam.create_access_key(UserName="trainer")["AccessKey"]
        yield dict(endpoint=endpoint, key_id=key["AccessKeyId"], secret=key["SecretAccessKey"])
    finally:
        server.terminate()
        server.wait(timeout=30)


@pytest.fixture(scope="module")
def packed(cli, moto_server, tmp_path_factory):
    """A make-demo dataset, its `segfeed pack` shards (3 samples a shard) in a bucket under voc/."""
    root = tmp_path_factory.mktemp("object_storage")
    demo = root / "demo"
    subprocess.run([str(cli), "make-demo", str(demo), "--count", "14", "--width", "64", "--height", "48"],
                   check=True, capture_output=True)
    shards = root / "shards"
    subprocess.run([str(cli), "pack", "--data", str(demo), "--output", str(shards), "--samples-per-shard", "3"],
                   check=True, capture_output=True)
    s3 = s3_client(moto_server)
    s3.create_bucket(Bucket=BUCKET)
    for path in sorted(shards.iterdir()):
        s3.upload_file(str(path), BUCKET, f"voc/{path.name}")
    return dict(demo=demo, shards=shards)


def s3_client(server, secret=None):
    return boto3.client("s3", endpoint_url=server["endpoint"], region_name="us-east-1",
                        aws_access_key_id=server["key_id"], aws_secret_access_key=secret or server["secret"])


@pytest.fixture()
def aws_env(moto_server, monkeypatch, tmp_path):
    """The environment the AWS tools read, pointing at the server; HOME without ~/.aws."""
    monkeypatch.setenv("HOME", str(tmp_path))
    for name in ("AWS_PROFILE", "AWS_SESSION_TOKEN", "AWS_ENDPOINT_URL_S3", "AWS_CONFIG_FILE",
                 "AWS_SHARED_CREDENTIALS_FILE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_ENDPOINT_URL", moto_server["endpoint"])
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", moto_server["key_id"])
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", moto_server["secret"])
    monkeypatch.setenv("AWS_REGION", "us-east-1")
    return moto_server


def digests(data, epochs=2, **options):
    with segfeed.Loader(data, **{**OPTIONS, **options}) as loader:
        return [batch_digest(b) for epoch in range(epochs) for b in loader.epoch(epoch)]


def test_s3_streams_the_local_shards_and_the_folders_batches(packed, aws_env):
    expected = digests(packed["demo"])
    assert digests(packed["shards"]) == expected
    assert digests(f"s3://{BUCKET}/voc/") == expected
    assert digests(f"s3://{BUCKET}/voc/index.sfidx") == expected
    with segfeed.Loader(f"s3://{BUCKET}/voc", **OPTIONS) as loader:
        key, photo, mask = loader.pairs()[0]
        assert photo == f"s3://{BUCKET}/voc/train-000000.tar:{key}.jpg"
        stats = loader.stats()
    assert stats["remote_requests"] == 0 or stats["remote_connections"] >= 1


def test_ranks_and_a_resume_stream_the_folders_batches(packed, aws_env):
    url = f"s3://{BUCKET}/voc/"
    for rank in (0, 1):
        assert digests(url, rank=rank, world_size=2) == digests(packed["demo"], rank=rank, world_size=2)
    with segfeed.Loader(url, **OPTIONS) as loader:
        it = iter(loader.epoch(1))
        next(it).release()
        state = loader.state_dict()
    with segfeed.Loader(packed["demo"], **OPTIONS) as loader:
        expected = [batch_digest(b) for b in loader.epoch(1)][1:]
    with segfeed.Loader(url, **{**OPTIONS, "threads": 1}) as loader:
        loader.load_state_dict(state)
        assert [batch_digest(b) for b in loader] == expected
    assert SECRET not in repr(state) and aws_env["secret"] not in repr(state)


def test_bench_reads_s3_with_the_local_digest_and_reports_requests(cli, packed, aws_env):
    def bench(data):
        run = subprocess.run([str(cli), "bench", "--data", data, "--epochs", "2", "--threads", "2", "--digest",
                              "--batch", "4"], capture_output=True, text=True, timeout=120)
        assert run.returncode == 0, run.stderr
        return run.stdout
    local = bench(str(packed["shards"]))
    remote = bench(f"s3://{BUCKET}/voc/")
    digest = [line for line in local.splitlines() if line.startswith("digest ")]
    assert digest and digest == [line for line in remote.splitlines() if line.startswith("digest ")]
    assert "object storage:" in remote and "requests" in remote and "connections" in remote
    assert aws_env["secret"] not in remote


def test_plan_counts_the_read_ahead(cli, packed, aws_env):
    run = subprocess.run([str(cli), "plan", "--data", f"s3://{BUCKET}/voc/", "--read-ahead-bytes", "1048576"],
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    assert "read ahead       1048576 bytes" in run.stdout


def test_a_wrong_secret_is_refused_with_403_and_no_secret_in_the_message(packed, aws_env, monkeypatch):
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", SECRET)
    with pytest.raises(segfeed.FileError) as error:
        segfeed.Loader(f"s3://{BUCKET}/voc/", **OPTIONS)
    message = str(error.value)
    assert f"access denied for s3://{BUCKET}/voc/index.sfidx" in message
    assert "check the credentials and the bucket policy" in message
    assert SECRET not in message and aws_env["secret"] not in message


def test_a_missing_index_or_shard_says_404_and_what_to_check(packed, aws_env):
    with pytest.raises(segfeed.FileError, match="no such object s3://segfeed-data/nothing/index.sfidx"):
        segfeed.Loader(f"s3://{BUCKET}/nothing/", **OPTIONS)
    s3 = s3_client(aws_env)
    for path in packed["shards"].iterdir():
        s3.upload_file(str(path), BUCKET, f"gone/{path.name}")
    s3.delete_object(Bucket=BUCKET, Key="gone/train-000001.tar")
    with segfeed.Loader(f"s3://{BUCKET}/gone/", **OPTIONS) as loader:
        with pytest.raises(segfeed.FileError, match=r"no such object s3://segfeed-data/gone/train-000001\.tar"):
            for _ in loader.epoch(0):
                pass


def test_anonymous_reads_of_a_public_http_server(packed, monkeypatch, tmp_path):
    """A plain HTTP server with Range support serves the shards' folder; nothing is signed."""
    monkeypatch.delenv("AWS_ACCESS_KEY_ID", raising=False)
    monkeypatch.delenv("AWS_SECRET_ACCESS_KEY", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    with ranged_file_server(packed["shards"]) as port:
        assert digests(f"http://127.0.0.1:{port}/") == digests(packed["shards"])


def test_https_is_verified_and_trusts_the_named_ca_bundle(packed, monkeypatch, tmp_path):
    """An HTTPS server with a self-signed certificate made here: refused against the
    system's CAs (whichever libcurl runs: Debian's with its compiled-in paths, or the
    wheel's, which finds the distribution's bundle itself), read with AWS_CA_BUNDLE or
    SSL_CERT_FILE naming the certificate."""
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_CA_BUNDLE", "SSL_CERT_FILE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    certificate, key = tmp_path / "certificate.pem", tmp_path / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
                    "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
                    "-keyout", str(key), "-out", str(certificate)], check=True, capture_output=True)
    with ranged_file_server(packed["shards"], tls=(certificate, key)) as port:
        url = f"https://127.0.0.1:{port}/"
        with pytest.raises(segfeed.FileError, match="certificate"):
            segfeed.Loader(url, **OPTIONS, remote_attempts=1)
        for variable in ("AWS_CA_BUNDLE", "SSL_CERT_FILE"):
            with monkeypatch.context() as scoped:
                scoped.setenv(variable, str(certificate))
                assert digests(url) == digests(packed["shards"]), variable


# --- a plain HTTP file server with Range support ------------------------------------------


class RangedFiles(http.server.SimpleHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def do_GET(self):
        path = pathlib.Path(self.translate_path(self.path))
        if not path.is_file():
            self.send_error(404)
            return
        data = path.read_bytes()
        spec = self.headers.get("Range")
        status = 200
        if spec:
            first, last = spec.removeprefix("bytes=").split("-")
            data = data[int(first):int(last) + 1]
            status = 206
        self.send_response(status)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


@contextlib.contextmanager
def ranged_file_server(folder: pathlib.Path, tls=None):
    """On 127.0.0.1; HTTPS with tls=(certificate, key)."""
    handler = lambda *args: RangedFiles(*args, directory=str(folder))  # noqa: E731
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    if tls:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(*map(str, tls))
        server.socket = context.wrap_socket(server.socket, server_side=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.server_address[1]
    finally:
        server.shutdown()
        server.server_close()


# --- the fault proxy -----------------------------------------------------------------------


class Faults:
    """Which requests fail and how: each shard request (not the index's) fails its first
    `times` attempts with `kind` (503, 500, reset, cut, wrong); times=None: every attempt."""

    def __init__(self, kind: str, times):
        self.kind, self.times = kind, times
        self.seen: dict = {}
        self.lock = threading.Lock()
        self.faults = 0

    def fault_for(self, path: str, range_header: str):
        if path.endswith(".sfidx"):
            return None
        with self.lock:
            n = self.seen.get((path, range_header), 0)
            self.seen[(path, range_header)] = n + 1
            if self.times is None or n < self.times:
                self.faults += 1
                return self.kind
        return None


def fault_proxy_handler(upstream_port: int, faults: Faults):
    class Proxy(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def do_GET(self):
            fault = faults.fault_for(self.path, self.headers.get("Range", ""))
            if fault == "reset":
                self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                self.close_connection = True
                return
            if fault in ("503", "500"):
                body = b"<Error><Code>SlowDown</Code></Error>" if fault == "503" else b"<Error/>"
                self.send_response(int(fault))
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
                return
            upstream = http.client.HTTPConnection("127.0.0.1", upstream_port, timeout=30)
            # The signed headers go on unchanged (Host included): the signature stays valid.
            upstream.request("GET", self.path, headers=dict(self.headers.items()))
            response = upstream.getresponse()
            body = response.read()
            upstream.close()
            self.send_response(response.status)
            for name, value in response.getheaders():
                if name.lower() not in ("content-length", "connection", "transfer-encoding", "date", "server"):
                    self.send_header(name, value)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            if fault == "cut":
                self.wfile.write(body[:len(body) // 2])
                self.close_connection = True
                return
            if fault == "wrong":
                body = bytes(b ^ 0x5A for b in body)
            self.wfile.write(body)

    return Proxy


@contextlib.contextmanager
def fault_proxy(server, faults: Faults):
    upstream_port = int(server["endpoint"].rsplit(":", 1)[1])
    proxy = http.server.ThreadingHTTPServer(("127.0.0.1", 0), fault_proxy_handler(upstream_port, faults))
    proxy.daemon_threads = True
    thread = threading.Thread(target=proxy.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{proxy.server_address[1]}"
    finally:
        proxy.shutdown()
        proxy.server_close()


FAST_RETRIES = dict(remote_attempts=3, remote_connect_timeout_ms=2000, remote_stall_timeout_ms=2000)


@pytest.mark.parametrize("kind", ["503", "500", "reset", "cut", "wrong"])
def test_retries_give_the_same_batches_under_every_fault(packed, aws_env, monkeypatch, kind):
    expected = digests(packed["shards"])
    faults = Faults(kind, times=2)
    with fault_proxy(aws_env, faults) as endpoint:
        monkeypatch.setenv("AWS_ENDPOINT_URL", endpoint)
        with segfeed.Loader(f"s3://{BUCKET}/voc/", **OPTIONS, **FAST_RETRIES) as loader:
            got = [batch_digest(b) for epoch in range(2) for b in loader.epoch(epoch)]
            stats = loader.stats()
    assert got == expected
    # curl itself tries a fresh connection once when a reused one dies without a reply, so
    # some resets cost no retry of ours.
    assert faults.faults > 0 and stats["remote_retries"] >= (1 if kind == "reset" else faults.faults)


@pytest.mark.parametrize("kind", ["503", "reset", "wrong"])
def test_exhausted_retries_are_a_bad_sample_named_by_url(packed, aws_env, monkeypatch, kind):
    with fault_proxy(aws_env, Faults(kind, times=None)) as endpoint:
        monkeypatch.setenv("AWS_ENDPOINT_URL", endpoint)
        with segfeed.Loader(f"s3://{BUCKET}/voc/", **OPTIONS, **FAST_RETRIES) as loader:
            with pytest.raises(segfeed.FileError) as error:
                for _ in loader.epoch(0):
                    pass
        message = str(error.value)
        assert f"s3://{BUCKET}/voc/train-0000" in message and "after 3 attempts" in message
        assert aws_env["secret"] not in message
        with segfeed.Loader(f"s3://{BUCKET}/voc/", **OPTIONS, **FAST_RETRIES, on_bad_file="skip") as loader:
            # Every pair bad: the slot gives up, saying so, instead of drawing forever.
            with pytest.raises(segfeed.FileError, match="pairs are bad"):
                for _ in loader.epoch(0):
                    pass
            skipped = loader.stats()["skipped_files"]
    assert skipped and all(f["path"].startswith(f"s3://{BUCKET}/voc/train-") for f in skipped)
    assert all("after 3 attempts" in f["detail"] for f in skipped)
    assert not any(aws_env["secret"] in f["detail"] for f in skipped)


def test_one_bad_shard_is_skipped_and_listed_the_rest_streams(packed, aws_env, monkeypatch):
    class OneShard(Faults):
        def fault_for(self, path, range_header):
            return "503" if path.endswith("train-000001.tar") else None
    with fault_proxy(aws_env, OneShard("503", None)) as endpoint:
        monkeypatch.setenv("AWS_ENDPOINT_URL", endpoint)
        with segfeed.Loader(f"s3://{BUCKET}/voc/", **OPTIONS, **FAST_RETRIES, on_bad_file="skip") as loader:
            batches = sum(1 for _ in loader.epoch(0))
            stats = loader.stats()
    assert batches == 5  # 14 samples in batches of 3, the last short: replaced, batches stay full
    assert stats["samples_skipped"] == 3
    assert {f["path"].rsplit(":", 1)[0] for f in stats["skipped_files"]} == {f"s3://{BUCKET}/voc/train-000001.tar"}
    assert all("HTTP 503" in f["detail"] and "after 3 attempts" in f["detail"] for f in stats["skipped_files"])
