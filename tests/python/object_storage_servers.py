"""The servers the object-storage tests run on 127.0.0.1, each at a free port and stopped
after: moto's S3 with its request authentication on, a plain HTTP file server with Range
support, a fault proxy in front of moto, and TLS in front of either with a certificate
made in the test (openssl). The fixtures (moto_server, aws_env) are imported by the test
modules that use them; what scripts/dev.sh installs for them (boto3, moto[server],
openssl) skips a test module where it is missing, and fails it under CI=true."""

from __future__ import annotations

import contextlib
import http.client
import http.server
import json
import os
import pathlib
import random
import shutil
import socket
import ssl
import struct
import subprocess
import sys
import threading
import time
import zlib
from typing import Dict, Iterator, Optional

import pytest


def require(module: str):
    """`module` imported; where it is missing, the test module skips, or fails under CI=true."""
    try:
        return __import__(module, fromlist=["_"])
    except ImportError:
        message = f"{module} is not installed (scripts/dev.sh installs it into the test venv)"
        if os.environ.get("CI") == "true":
            pytest.fail(message, pytrace=False)
        pytest.skip(message, allow_module_level=True)


boto3 = require("boto3")
require("moto.server")

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


def s3_client(server, secret=None):
    return boto3.client("s3", endpoint_url=server["endpoint"], region_name="us-east-1",
                        aws_access_key_id=server["key_id"], aws_secret_access_key=secret or server["secret"])


@pytest.fixture()
def aws_env(moto_server, monkeypatch, tmp_path):
    """The environment the AWS tools read, pointing at the server; HOME without ~/.aws."""
    monkeypatch.setenv("HOME", str(tmp_path))
    for name in ("AWS_PROFILE", "AWS_SESSION_TOKEN", "AWS_ENDPOINT_URL_S3", "AWS_CONFIG_FILE",
                 "AWS_SHARED_CREDENTIALS_FILE", "AWS_CA_BUNDLE", "SSL_CERT_FILE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_ENDPOINT_URL", moto_server["endpoint"])
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", moto_server["key_id"])
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", moto_server["secret"])
    monkeypatch.setenv("AWS_REGION", "us-east-1")
    return moto_server


def pack_into_bucket(cli: pathlib.Path, server, root: pathlib.Path, prefix: str, count: int = 14,
                     bucket: str = BUCKET) -> Dict[str, pathlib.Path]:
    """A make-demo dataset of `count` pairs in root/demo, its `segfeed pack` shards (3 samples
    a shard) in root/shards, uploaded under s3://bucket/prefix/ (the bucket made if new)."""
    demo = root / "demo"
    subprocess.run([str(cli), "make-demo", str(demo), "--count", str(count), "--width", "64", "--height", "48"],
                   check=True, capture_output=True)
    shards = root / "shards"
    subprocess.run([str(cli), "pack", "--data", str(demo), "--output", str(shards), "--samples-per-shard", "3"],
                   check=True, capture_output=True)
    s3 = s3_client(server)
    with contextlib.suppress(s3.exceptions.BucketAlreadyOwnedByYou):
        s3.create_bucket(Bucket=bucket)
    for path in sorted(shards.iterdir()):
        s3.upload_file(str(path), bucket, f"{prefix}/{path.name}")
    return dict(demo=demo, shards=shards)


# --- TLS: a CA and a server certificate for 127.0.0.1 ------------------------------------


def make_certificates(folder: pathlib.Path) -> Dict[str, pathlib.Path]:
    """A self-signed CA (ca.pem) and a certificate for IP 127.0.0.1 it signed (server.pem,
    server.key), made with the openssl command; valid for two days."""
    openssl = shutil.which("openssl")
    if openssl is None:
        message = "openssl is not installed (Debian's openssl)"
        if os.environ.get("CI") == "true":
            pytest.fail(message, pytrace=False)
        pytest.skip(message)
    folder.mkdir(parents=True, exist_ok=True)
    ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]

    def run(*args: str) -> None:
        subprocess.run([openssl, *args], check=True, capture_output=True, cwd=folder)

    run("req", "-x509", *ec, "-keyout", "ca.key", "-out", "ca.pem", "-days", "2", "-subj", "/CN=segfeed test CA",
        "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign")
    run("req", *ec, "-keyout", "server.key", "-out", "server.csr", "-subj", "/CN=127.0.0.1")
    (folder / "server.ext").write_text("subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n")
    run("x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-set_serial", "2",
        "-days", "2", "-extfile", "server.ext", "-out", "server.pem")
    return dict(ca=folder / "ca.pem", server=folder / "server.pem", key=folder / "server.key")


class _Server(http.server.ThreadingHTTPServer):
    """A threading HTTP server that is quiet about clients that go away, and with a
    certificate speaks TLS: the handshake in the request's own thread, so a client that
    refuses the certificate holds up no other."""

    daemon_threads = True
    context: Optional[ssl.SSLContext] = None

    def finish_request(self, request, client_address):
        if self.context is not None:
            try:
                request = self.context.wrap_socket(request, server_side=True)
            except (ssl.SSLError, OSError):
                return  # the client refused the certificate, or left
        super().finish_request(request, client_address)

    def handle_error(self, request, client_address):
        pass


@contextlib.contextmanager
def _serving(handler, certificates: Optional[Dict[str, pathlib.Path]]) -> Iterator[int]:
    server = _Server(("127.0.0.1", 0), handler)
    if certificates:
        server.context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        server.context.load_cert_chain(certificates["server"], certificates["key"])
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.server_address[1]
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=30)


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
def ranged_file_server(folder: pathlib.Path, certificates: Optional[Dict[str, pathlib.Path]] = None):
    """The files of `folder` over HTTP, or HTTPS with `certificates` (make_certificates());
    yields the port."""
    handler = lambda *args: RangedFiles(*args, directory=str(folder))  # noqa: E731
    with _serving(handler, certificates) as port:
        yield port


# --- the fault proxy -----------------------------------------------------------------------


class Faults:
    """Which requests fail and how: each shard request (not the index's) fails its first
    `times` attempts with `kind` (503, 500, reset, cut, wrong); times=None: every attempt."""

    delay_ms = 0  # added before every answer

    def __init__(self, kind: str, times):
        self.kind, self.times = kind, times
        self.seen: dict = {}
        self.lock = threading.Lock()
        self.faults = 0

    def fault_for(self, path: str, range_header: str):
        """The fault of this attempt (counted), or None; the index is never faulted."""
        if path.endswith(".sfidx"):
            return None
        with self.lock:
            n = self.seen.get((path, range_header), 0)
            self.seen[(path, range_header)] = n + 1
            fault = self.choose(path, range_header, n)
            self.faults += fault is not None
            return fault

    def choose(self, path: str, range_header: str, n: int):
        """The fault of attempt n (from 0) of one request, or None."""
        return self.kind if self.times is None or n < self.times else None


class SeededFaults(Faults):
    """Latency on every answer, and each shard request's first two attempts failing at
    `rate` with a kind drawn from `kinds`, by `seed` (the same requests fail in every run);
    the third attempt passes, so 3 attempts always get through."""

    def __init__(self, seed: int, rate: float, delay_ms: int,
                 kinds=("503", "500", "reset", "cut", "wrong")):
        super().__init__("seeded", 2)
        self.seed, self.rate, self.delay_ms, self.kinds = seed, rate, delay_ms, kinds

    def choose(self, path: str, range_header: str, n: int):
        draw = random.Random(zlib.crc32(f"{self.seed}|{path}|{range_header}|{n}".encode()))
        return draw.choice(self.kinds) if n < self.times and draw.random() < self.rate else None


class NoFaults(Faults):
    """Every request passes: the proxy only forwards (TLS in front of moto)."""

    def __init__(self):
        super().__init__("none", 0)

    def fault_for(self, path: str, range_header: str):
        return None


def fault_proxy_handler(upstream_port: int, faults: Faults):
    class Proxy(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def do_GET(self):
            fault = faults.fault_for(self.path, self.headers.get("Range", ""))
            time.sleep(faults.delay_ms / 1000)
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
def fault_proxy(server, faults: Faults, certificates: Optional[Dict[str, pathlib.Path]] = None):
    """A proxy in front of moto that injects `faults`; over HTTPS with `certificates`.
    Yields its endpoint URL."""
    upstream_port = int(server["endpoint"].rsplit(":", 1)[1])
    with _serving(fault_proxy_handler(upstream_port, faults), certificates) as port:
        yield f"{'https' if certificates else 'http'}://127.0.0.1:{port}"
