#!/usr/bin/env python3
"""Shards in object storage against local shards (issue 46), measured.

For each shard set (a VOC-sized and a Carvana-sized one, made with
`segfeed make-demo` and `segfeed pack` unless already there) this runs
`segfeed bench --data ... --epochs 1 --threads 2 --digest` under
/usr/bin/time -v against

  local    the shard folder;
  moto     moto's S3 server on 127.0.0.1 (s3://, signed requests);
  http     a keep-alive HTTP/1.1 range server on 127.0.0.1 serving the shard
           folders (nginx with a config of its own on a free port when
           nginx is installed, else a threaded Python server), read
           anonymously through an http:// URL;
  proxy0   the same server behind this script's asyncio proxy adding
           nothing (keep-alive through the proxy: one upstream connection
           per client connection): what the proxy itself costs;
  lat20    the proxy adding --latency-ms to every request;
  fail1    the same also failing --fail-rate of the requests (half 503
           SlowDown, half a reset connection), by seed;

alternating the rows within each round (reversed every other round), --runs
rounds, and prints the medians. A row named ROW:before runs the binary of
--before instead (a build before a change, on the same machine load). It also measures each server alone under the reader's concurrency
(--probe-threads threads of keep-alive range GETs of the samples' own
ranges through http.client), so that a table can say which side is the
limit. Every server runs in a process of its own (this script, re-run with
a `serve-*` command) on 127.0.0.1 at a free port, and is stopped at the
end.

    build/python-venv/bin/python bench/object_storage_bench.py --segfeed build/release/src/cli/segfeed \
        --work osbench --runs 3

Needs boto3 and moto[server] (the test venv's), nginx optionally.
"""

import argparse
import asyncio
import contextlib
import http.client
import http.server
import json
import os
import random
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tarfile
import tempfile
import threading
import time

BUCKET = "bench"
KEYS = {"AWS_ACCESS_KEY_ID": "benchkey", "AWS_SECRET_ACCESS_KEY": "benchsecret", "AWS_REGION": "us-east-1"}


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for_port(port, timeout=30.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=1):
            return
        time.sleep(0.1)
    raise RuntimeError(f"nothing listens on 127.0.0.1:{port} after {timeout} s")


# --- servers, each run as `object_storage_bench.py serve-*` in its own process ---------------


def serve_moto(port):
    from moto.server import ThreadedMotoServer

    server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    threading.Event().wait()


class RangeHandler(http.server.BaseHTTPRequestHandler):
    """GET with one Range (206, the bytes by os.sendfile) over kept-alive connections."""

    protocol_version = "HTTP/1.1"
    root = "."

    def log_message(self, *args):
        pass

    def do_GET(self):
        path = os.path.join(self.root, self.path.split("?", 1)[0].lstrip("/"))
        try:
            f = open(path, "rb")
        except OSError:
            self.send_response(404)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        with f:
            size = os.fstat(f.fileno()).st_size
            start, end = 0, size - 1
            match = re.fullmatch(r"bytes=(\d+)-(\d*)", self.headers.get("Range", ""))
            if match:
                start = int(match[1])
                end = min(size - 1, int(match[2])) if match[2] else size - 1
                self.send_response(206)
                self.send_header("Content-Range", f"bytes {start}-{end}/{size}")
            else:
                self.send_response(200)
            self.send_header("Content-Length", str(end - start + 1))
            self.end_headers()
            self.wfile.flush()
            offset, left = start, end - start + 1
            while left > 0:
                sent = os.sendfile(self.connection.fileno(), f.fileno(), offset, left)
                offset += sent
                left -= sent


def serve_python_range(root, port):
    RangeHandler.root = root
    server = http.server.ThreadingHTTPServer(("127.0.0.1", port), RangeHandler)
    server.daemon_threads = True
    server.serve_forever()


async def proxy_connection(client_reader, client_writer, upstream_port, latency, fail_rate, rng):
    upstream_reader, upstream_writer = await asyncio.open_connection("127.0.0.1", upstream_port)
    try:
        while True:
            head = await client_reader.readuntil(b"\r\n\r\n")
            await asyncio.sleep(latency)
            if rng.random() < fail_rate:
                if rng.random() < 0.5:
                    client_writer.transport.abort()  # a reset connection
                    return
                body = b"<Error><Code>SlowDown</Code></Error>"
                client_writer.write(b"HTTP/1.1 503 Slow Down\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body))
                await client_writer.drain()
                continue
            upstream_writer.write(head)
            await upstream_writer.drain()
            response = await upstream_reader.readuntil(b"\r\n\r\n")
            match = re.search(rb"(?i)\r\ncontent-length:\s*(\d+)", response)
            left = int(match[1]) if match else 0
            client_writer.write(response)
            while left > 0:
                data = await upstream_reader.read(min(left, 1 << 20))
                if not data:
                    raise ConnectionError("upstream closed")
                left -= len(data)
                client_writer.write(data)
                await client_writer.drain()
            await client_writer.drain()
            if re.search(rb"(?i)\r\nconnection:\s*close", response):
                return
    except (asyncio.IncompleteReadError, ConnectionError, OSError):
        pass
    finally:
        upstream_writer.close()
        client_writer.close()


def serve_proxy(upstream_port, port, latency_ms, fail_rate, seed):
    rng = random.Random(seed)

    async def main():
        server = await asyncio.start_server(
            lambda r, w: proxy_connection(r, w, upstream_port, latency_ms / 1000.0, fail_rate, rng), "127.0.0.1", port
        )
        async with server:
            await server.serve_forever()

    asyncio.run(main())


class Servers:
    """The servers' processes, stopped on exit."""

    def __init__(self, work):
        self.work = work
        self.processes = []

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        for process in self.processes:
            process.terminate()
        for process in self.processes:
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()

    def start(self, *command):
        port = free_port()
        argv = [arg.replace("{port}", str(port)) for arg in command]
        log = open(os.path.join(self.work, f"server-{port}.log"), "w")
        self.processes.append(subprocess.Popen(argv, stdout=log, stderr=log))
        wait_for_port(port)
        return port

    def serve(self, *args):
        return self.start(sys.executable, os.path.abspath(__file__), *args, "--port", "{port}")

    def nginx(self, root):
        """nginx with a config of its own (no root needed), one worker, sendfile, long keep-alive."""
        nginx = shutil.which("nginx") or ("/usr/sbin/nginx" if os.path.exists("/usr/sbin/nginx") else None)
        if nginx is None:
            return None
        prefix = tempfile.mkdtemp(prefix="nginx-", dir=self.work)
        port = free_port()
        conf = os.path.join(prefix, "nginx.conf")
        with open(conf, "w") as f:
            f.write(
                f"""daemon off;
worker_processes 1;
pid {prefix}/nginx.pid;
error_log {prefix}/error.log;
events {{ worker_connections 1024; }}
http {{
  access_log off;
  sendfile on;
  tcp_nopush on;
  keepalive_requests 1000000;
  keepalive_timeout 120s;
  client_body_temp_path {prefix}/body;
  proxy_temp_path {prefix}/proxy;
  fastcgi_temp_path {prefix}/fastcgi;
  uwsgi_temp_path {prefix}/uwsgi;
  scgi_temp_path {prefix}/scgi;
  server {{
    listen 127.0.0.1:{port};
    root {os.path.abspath(root)};
  }}
}}
"""
            )
        self.processes.append(subprocess.Popen([nginx, "-p", prefix, "-c", conf, "-e", f"{prefix}/error.log"]))
        wait_for_port(port)
        return port


# --- the data ------------------------------------------------------------------------------


def make_sets(segfeed, work, voc_count, carvana_count):
    sets = {}
    specs = {
        "voc": (["--dataset", "voc", "--count", str(voc_count), "--width", "500", "--height", "375"],
                ["--dataset", "voc", "--split", "trainval"], f"voc{voc_count}"),
        "carvana": (["--count", str(carvana_count)], [], f"carvana{carvana_count}"),
    }
    for name, (make_args, pack_args, folder) in specs.items():
        data, shards = os.path.join(work, folder), os.path.join(work, folder + "-shards")
        if not os.path.exists(os.path.join(shards, "index.sfidx")):
            if not os.path.isdir(data):
                subprocess.run([segfeed, "make-demo", data, *make_args, "--threads", "2"], check=True,
                               stdout=subprocess.DEVNULL)
            subprocess.run([segfeed, "pack", "--data", data, *pack_args, "--output", shards, "--threads", "2"],
                           check=True, stdout=subprocess.DEVNULL)
        sets[name] = shards
    return sets


def sample_ranges(shards):
    """(shard file name, offset, size) of each sample's members (photo and mask, as the reader asks)."""
    ranges = []
    for name in sorted(os.listdir(shards)):
        if not name.endswith(".tar"):
            continue
        members = {}
        with tarfile.open(os.path.join(shards, name)) as tar:
            for member in tar:
                if member.isfile() and not member.name.endswith(".json"):
                    key = member.name.split(".", 1)[0]
                    start, end = members.get(key, (1 << 62, 0))
                    members[key] = (min(start, member.offset_data), max(end, member.offset_data + member.size))
        ranges += [(name, start, end - start) for start, end in members.values()]
    return ranges


def upload(port, sets):
    import boto3

    s3 = boto3.client("s3", endpoint_url=f"http://127.0.0.1:{port}", region_name=KEYS["AWS_REGION"],
                      aws_access_key_id=KEYS["AWS_ACCESS_KEY_ID"],
                      aws_secret_access_key=KEYS["AWS_SECRET_ACCESS_KEY"])
    s3.create_bucket(Bucket=BUCKET)
    for shards in sets.values():
        prefix = os.path.basename(shards)
        for name in sorted(os.listdir(shards)):
            s3.upload_file(os.path.join(shards, name), BUCKET, f"{prefix}/{name}")


# --- measuring -----------------------------------------------------------------------------


def probe(port, prefix, ranges, threads, seconds):
    """Range GETs of the samples' ranges from `threads` threads over kept-alive connections."""
    stop = time.monotonic() + seconds
    counts = {"requests": 0, "bytes": 0, "connections": 0, "errors": 0}
    lock = threading.Lock()

    def worker(seed):
        rng = random.Random(seed)
        connection, requests, received, connections, errors = None, 0, 0, 0, 0
        while time.monotonic() < stop:
            name, offset, size = rng.choice(ranges)
            if connection is None:
                connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
                connections += 1
            try:
                connection.request("GET", f"/{prefix}/{name}", headers={"Range": f"bytes={offset}-{offset + size - 1}"})
                response = connection.getresponse()
                body = response.read()
                if response.status != 206 or len(body) != size:
                    errors += 1
                requests += 1
                received += len(body)
                if response.will_close:
                    connection.close()
                    connection = None
            except (OSError, http.client.HTTPException):
                errors += 1
                connection.close()
                connection = None
        with lock:
            for key, value in zip(counts, (requests, received, connections, errors)):
                counts[key] += value

    started = time.monotonic()
    pool = [threading.Thread(target=worker, args=(i,)) for i in range(threads)]
    for thread in pool:
        thread.start()
    for thread in pool:
        thread.join()
    wall = time.monotonic() - started
    return dict(counts, wall=wall, requests_per_s=counts["requests"] / wall, mb_per_s=counts["bytes"] / wall / 1e6)


def bench(segfeed, data, env, extra):
    """One `segfeed bench` under /usr/bin/time -v: its report's numbers and the process's."""
    command = ["/usr/bin/time", "-v", segfeed, "bench", "--data", data, "--epochs", "1", "--threads", "2",
               "--digest", *extra]
    done = subprocess.run(command, env=env, capture_output=True, text=True)
    out = done.stdout + done.stderr
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed ({done.returncode}):\n{out}")

    def find(pattern, cast=float, default=None):
        match = re.search(pattern, out)
        return cast(match[1].replace(",", "")) if match else default

    wall = find(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): ([\d:.]+)", str)
    seconds = sum(float(part) * 60**i for i, part in enumerate(reversed(wall.split(":"))))
    return {
        "samples_per_s": find(r"throughput: ([\d.]+) samples/s"),
        "wall_s": seconds,
        "requests": find(r"object storage: (\d+) requests", int, 0),
        "requests_per_s": find(r"requests \(([\d.]+)/s", float, 0.0),
        "retries": find(r"/s over the run, (\d+) retries", int, 0),
        "connections": find(r"on (\d+) connections", int, 0),
        "read_ahead": find(r"read ahead at most ([\d.]+ \w+)", str, "-"),
        "cpu_s": find(r"User time \(seconds\): ([\d.]+)") + find(r"System time \(seconds\): ([\d.]+)"),
        "peak_rss_mib": find(r"Maximum resident set size \(kbytes\): (\d+)", int) / 1024,
        "plan_mib": find(r"plan: at most ([\d.]+) MiB", float),
        "digest": find(r"digest ([0-9a-f]{16})", str),
    }


def plan_total(segfeed, data, env):
    done = subprocess.run([segfeed, "plan", "--data", data, "--threads", "2"], env=env, capture_output=True,
                          text=True)
    match = re.search(r"total\s+\d+ bytes\s+([\d.]+) MiB", done.stdout)
    return float(match[1]) if match else None


def main_bench(args):
    segfeed = os.path.abspath(args.segfeed)
    os.makedirs(args.work, exist_ok=True)
    work = os.path.abspath(args.work)
    sets = make_sets(segfeed, work, args.voc_count, args.carvana_count)
    sets = {name: path for name, path in sets.items() if name in args.sets.split(",")}
    rows = args.rows.split(",")
    results = {"load_before": os.getloadavg(), "sets": {}, "probes": {}}
    with Servers(work) as servers:
        moto_port = servers.serve("serve-moto")
        upload(moto_port, sets)
        http_port = None if args.range_server == "python" else servers.nginx(work)
        server_kind = "nginx" if http_port else "python"
        if http_port is None:
            http_port = servers.serve("serve-range", "--root", work)
        plain_proxy_port = servers.serve("serve-proxy", "--upstream", str(http_port), "--latency-ms", "0",
                                         "--fail-rate", "0")
        proxy_port = servers.serve("serve-proxy", "--upstream", str(http_port), "--latency-ms",
                                   str(args.latency_ms), "--fail-rate", "0")
        faulty_port = servers.serve("serve-proxy", "--upstream", str(http_port), "--latency-ms",
                                    str(args.latency_ms), "--fail-rate", str(args.fail_rate), "--seed", "46")
        results["range_server"] = server_kind
        base_env = dict(os.environ)
        for key in ("AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_S3", "AWS_PROFILE", "AWS_SESSION_TOKEN"):
            base_env.pop(key, None)
        s3_env = dict(base_env, AWS_ENDPOINT_URL=f"http://127.0.0.1:{moto_port}", **KEYS)
        for set_name, shards in sets.items():
            prefix = os.path.basename(shards)
            sources = {
                "local": (shards, base_env),
                "moto": (f"s3://{BUCKET}/{prefix}/", s3_env),
                "http": (f"http://127.0.0.1:{http_port}/{prefix}/", base_env),
                "proxy0": (f"http://127.0.0.1:{plain_proxy_port}/{prefix}/", base_env),
                "lat20": (f"http://127.0.0.1:{proxy_port}/{prefix}/", base_env),
                "fail1": (f"http://127.0.0.1:{faulty_port}/{prefix}/", base_env),
            }
            ranges = sample_ranges(shards)
            sizes = sorted(size for _, _, size in ranges)
            probes = {}
            for name, port, path in (("moto", moto_port, f"{BUCKET}/{prefix}"), (server_kind, http_port, prefix),
                                     (f"{server_kind} + {args.latency_ms} ms proxy", proxy_port, prefix)):
                probes[name] = probe(port, path, ranges, args.probe_threads, args.probe_seconds)
                print(f"[{set_name}] probe {name}: {json.dumps(probes[name])}", flush=True)
            runs = {row: [] for row in rows}
            for round_number in range(args.runs):
                order = rows if round_number % 2 == 0 else rows[::-1]
                for row in order:
                    source, _, build = row.partition(":")
                    if source == "moto" and round_number >= args.moto_runs:
                        continue
                    data, env = sources[source]
                    binary = os.path.abspath(args.before) if build == "before" else segfeed
                    run = bench(binary, data, env, args.bench_args.split())
                    runs[row].append(run)
                    print(f"[{set_name}] {row} round {round_number}: {json.dumps(run)}", flush=True)
            results["sets"][set_name] = {
                "samples": len(ranges),
                "sample_bytes_median": sizes[len(sizes) // 2],
                "shard_bytes": sum(os.path.getsize(os.path.join(shards, n)) for n in os.listdir(shards)),
                "plan_local_mib": plan_total(segfeed, shards, base_env),
                "plan_remote_mib": plan_total(segfeed, sources["http"][0], base_env),
                "probes": probes,
                "runs": runs,
            }
    results["load_after"] = os.getloadavg()
    report(results)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)


def report(results):
    print(f"\nload average before {results['load_before']}, after {results['load_after']}")
    for set_name, data in results["sets"].items():
        print(f"\n{set_name}: {data['samples']} samples, median {data['sample_bytes_median']} bytes a sample, "
              f"{data['shard_bytes'] / 1e6:.1f} MB of shards; plan {data['plan_local_mib']} MiB local, "
              f"{data['plan_remote_mib']} MiB remote")
        print("| source | samples/s (median) | x local | wall (runs) | CPU s (median) | requests | requests/s "
              "| connections | retries | peak RSS (max) | digest |")
        print("|---|---:|---:|---|---:|---:|---:|---:|---:|---:|---|")
        local = statistics.median(r["samples_per_s"] for r in data["runs"].get("local", [{"samples_per_s": 0}]))
        for row, runs in data["runs"].items():
            if not runs:
                continue
            speed = statistics.median(r["samples_per_s"] for r in runs)
            digests = sorted({r["digest"] for r in runs})
            walls = ", ".join(f"{r['wall_s']:.1f}" for r in runs)
            retries = ", ".join(str(r["retries"]) for r in runs)
            print(f"| {row} | {speed:.0f} | {speed / local if local else 0:.2f} | "
                  f"{walls} s | {statistics.median(r['cpu_s'] for r in runs):.1f} | "
                  f"{statistics.median(r['requests'] for r in runs):.0f} | "
                  f"{statistics.median(r['requests_per_s'] for r in runs):.0f} | "
                  f"{statistics.median(r['connections'] for r in runs):.0f} | "
                  f"{retries} | "
                  f"{max(r['peak_rss_mib'] for r in runs):.0f} MiB | {', '.join(digests)} |")
        print("\n| server alone | requests/s | MB/s | connections | errors |")
        print("|---|---:|---:|---:|---:|")
        for name, p in data["probes"].items():
            print(f"| {name} | {p['requests_per_s']:.0f} | {p['mb_per_s']:.0f} | {p['connections']} | {p['errors']} |")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command")
    run = sub.add_parser("run", help="the benchmark (the default)")
    for p in (parser, run):
        p.add_argument("--segfeed", default="build/release/src/cli/segfeed")
        p.add_argument("--work", default="osbench", help="the data sets and the servers' files")
        p.add_argument("--voc-count", type=int, default=2000)
        p.add_argument("--carvana-count", type=int, default=400)
        p.add_argument("--sets", default="voc,carvana")
        p.add_argument("--rows", default="local,moto,http,proxy0,lat20,fail1")
        p.add_argument("--before", help="the binary of the rows named ROW:before")
        p.add_argument("--runs", type=int, default=3, help="rounds of alternating runs")
        p.add_argument("--moto-runs", type=int, default=2, help="rounds that include moto (slow)")
        p.add_argument("--range-server", choices=("nginx", "python"), default="nginx",
                       help="nginx when installed, else the Python server")
        p.add_argument("--latency-ms", type=float, default=20)
        p.add_argument("--fail-rate", type=float, default=0.01)
        p.add_argument("--probe-threads", type=int, default=16, help="the reader's connections")
        p.add_argument("--probe-seconds", type=float, default=8)
        p.add_argument("--bench-args", default="", help="more flags for segfeed bench")
        p.add_argument("--json", help="write every run's numbers here")
    sub.add_parser("serve-moto").add_argument("--port", type=int, required=True)
    serve_range = sub.add_parser("serve-range")
    serve_range.add_argument("--root", required=True)
    serve_range.add_argument("--port", type=int, required=True)
    proxy = sub.add_parser("serve-proxy")
    proxy.add_argument("--upstream", type=int, required=True)
    proxy.add_argument("--port", type=int, required=True)
    proxy.add_argument("--latency-ms", type=float, default=20)
    proxy.add_argument("--fail-rate", type=float, default=0)
    proxy.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    if args.command == "serve-moto":
        serve_moto(args.port)
    elif args.command == "serve-range":
        serve_python_range(args.root, args.port)
    elif args.command == "serve-proxy":
        serve_proxy(args.upstream, args.port, args.latency_ms, args.fail_rate, args.seed)
    else:
        main_bench(args)


if __name__ == "__main__":
    main()
