"""Object storage over HTTPS, verified: a CA and a certificate for 127.0.0.1 made in the
test with openssl, TLS in front of moto (S3, signed) and of a plain file server (https://,
anonymous). Without the CA the Loader is refused at once with a message naming the URL and
the TLS failure; with AWS_CA_BUNDLE, or SSL_CERT_FILE, it streams the local shards' batches.
The servers are object_storage_servers.py's."""

from __future__ import annotations

import time

import pytest
import segfeed

from bench_digest import batch_digest
from object_storage_servers import (BUCKET, NoFaults, aws_env, fault_proxy, make_certificates,  # noqa: F401
                                    moto_server, pack_into_bucket, ranged_file_server)

OPTIONS = dict(batch_size=3, size=(32, 40), seed=5, threads=2)
# A refused certificate is final, not retried: well under these even on a loaded machine.
REFUSED_WITHIN_S = 20


@pytest.fixture(scope="module")
def packed(cli, moto_server, tmp_path_factory):
    return pack_into_bucket(cli, moto_server, tmp_path_factory.mktemp("object_storage_tls"), "tls", count=8)


@pytest.fixture(scope="module")
def certificates(tmp_path_factory):
    return make_certificates(tmp_path_factory.mktemp("certificates"))


@pytest.fixture(scope="module")
def https_moto(moto_server, certificates):
    """moto behind TLS: the proxy forwards every request unchanged."""
    with fault_proxy(moto_server, NoFaults(), certificates) as endpoint:
        yield endpoint


def digests(data, **options):
    with segfeed.Loader(data, **{**OPTIONS, **options}) as loader:
        return [batch_digest(b) for epoch in range(2) for b in loader.epoch(epoch)]


def refused(url: str) -> str:
    """The FileError's message of a Loader over `url`, which must come quickly."""
    started = time.monotonic()
    with pytest.raises(segfeed.FileError) as error:
        segfeed.Loader(url, **OPTIONS)
    assert time.monotonic() - started < REFUSED_WITHIN_S
    return str(error.value)


def test_s3_over_https_is_refused_without_the_ca(packed, aws_env, https_moto, monkeypatch):
    monkeypatch.setenv("AWS_ENDPOINT_URL", https_moto)
    message = refused(f"s3://{BUCKET}/tls/")
    assert f"s3://{BUCKET}/tls/index.sfidx" in message
    assert "SSL certificate problem" in message, message
    assert "set AWS_CA_BUNDLE or SSL_CERT_FILE" in message, message
    assert aws_env["secret"] not in message


@pytest.mark.parametrize("variable", ["AWS_CA_BUNDLE", "SSL_CERT_FILE"])
def test_s3_over_https_streams_the_local_batches_with_the_ca(packed, aws_env, https_moto, certificates,
                                                             monkeypatch, variable):
    monkeypatch.setenv("AWS_ENDPOINT_URL", https_moto)
    monkeypatch.setenv(variable, str(certificates["ca"]))
    assert digests(f"s3://{BUCKET}/tls/") == digests(packed["shards"])


def test_another_ca_is_refused_too(packed, aws_env, https_moto, monkeypatch, tmp_path):
    # Trust in some CA is not trust in any: the server's certificate is not this one's.
    monkeypatch.setenv("AWS_ENDPOINT_URL", https_moto)
    monkeypatch.setenv("AWS_CA_BUNDLE", str(make_certificates(tmp_path / "other")["ca"]))
    assert "SSL certificate problem" in refused(f"s3://{BUCKET}/tls/")


def test_a_ca_file_that_is_not_there_says_which_setting_to_check(packed, aws_env, https_moto, monkeypatch,
                                                                  tmp_path):
    monkeypatch.setenv("AWS_ENDPOINT_URL", https_moto)
    monkeypatch.setenv("AWS_CA_BUNDLE", str(tmp_path / "missing.pem"))
    message = refused(f"s3://{BUCKET}/tls/")
    assert f"s3://{BUCKET}/tls/index.sfidx" in message and "check AWS_CA_BUNDLE" in message, message


def test_an_https_file_server_is_refused_without_the_ca_and_read_with_it(packed, certificates, monkeypatch,
                                                                          tmp_path):
    monkeypatch.setenv("HOME", str(tmp_path))
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_CA_BUNDLE", "SSL_CERT_FILE"):
        monkeypatch.delenv(name, raising=False)
    with ranged_file_server(packed["shards"], certificates) as port:
        url = f"https://127.0.0.1:{port}/"
        message = refused(url)
        assert f"{url}index.sfidx" in message and "SSL certificate problem" in message, message
        monkeypatch.setenv("AWS_CA_BUNDLE", str(certificates["ca"]))
        assert digests(url) == digests(packed["shards"])
