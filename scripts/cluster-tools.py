#!/usr/bin/env python3
"""Helpers of scripts/cluster: a counting origin, generated sources, a bounded load, the table.

Standard library only. Every loop is bounded in count and time; traffic goes to 127.0.0.1 only.
"""
import argparse, base64, hashlib, hmac, http.client, http.server, json, os, shutil, socketserver, struct, subprocess
import sys, threading, time, urllib.request, zlib


def png(width, height, seed):
    """A gradient PNG made with zlib alone (no imaging library needed)."""
    rows = bytearray()
    for y in range(height):
        rows.append(0)
        for x in range(width):
            rows += bytes(((x * 255 // width + seed * 37) & 255, (y * 255 // height) & 255, (seed * 53) & 255))
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xffffffff)
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(bytes(rows), 6)) + chunk(b"IEND", b"")


def sources(args):
    os.makedirs(args.dir, exist_ok=True)
    for index in range(args.count):
        with open(os.path.join(args.dir, f"s{index}.png"), "wb") as f:
            f.write(png(args.width, args.height, index))


def heif(primary, items, references):
    """The `meta` of a HEIF file with no coded data: items (id, type, ispe size or None, data
    kept in idat) and references (type, from, [to]), the structure libheif reads."""
    be = lambda value, size: value.to_bytes(size, "big")
    box = lambda kind, payload: be(8 + len(payload), 4) + kind + payload
    full = lambda kind, payload, version=0: box(kind, bytes([version, 0, 0, 0]) + payload)
    infes = b"".join(full(b"infe", be(i, 2) + be(0, 2) + t + b"\0", 2) for i, t, _, _ in items)
    iref = full(b"iref", b"".join(box(t, be(f, 2) + be(len(to), 2) + b"".join(be(x, 2) for x in to))
                                   for t, f, to in references))
    located, offset = b"", 0
    for i, _, _, data in [item for item in items if item[3]]:
        located += be(i, 2) + be(1, 2) + be(0, 2) + be(1, 2) + be(offset, 4) + be(len(data), 4)
        offset += len(data)
    iloc = full(b"iloc", bytes([0x44, 0]) + be(sum(1 for item in items if item[3]), 2) + located, 1)
    properties, associations = [full(b"pixi", bytes([3, 8, 8, 8]))], b""
    for i, _, size, _ in items:
        indices = [1]
        if size:
            properties.append(full(b"ispe", be(size[0], 4) + be(size[1], 4)))
            indices.append(len(properties))
        associations += be(i, 2) + bytes([len(indices)] + indices)
    iprp = box(b"iprp", box(b"ipco", b"".join(properties)) + full(b"ipma", be(len(items), 4) + associations))
    meta = full(b"meta", full(b"hdlr", be(0, 4) + b"pict" + be(0, 12) + b"\0") + full(b"pitm", be(primary, 2))
                + full(b"iinf", be(len(items), 2) + infes) + iloc + box(b"idat", b"".join(it[3] for it in items))
                + iref + iprp)
    return box(b"ftyp", b"heic" + be(0, 4) + b"mif1heic") + meta


def hostile_heif(args):
    """HEIF files libheif 1.15 cannot survive: an overlay of a non-image (an abort), a grid made
    from itself (endless recursion, then an abort), one 4096x4096 tile named 256 times (hours of decoding)."""
    os.makedirs(args.dir, exist_ok=True)
    grid = lambda rows, columns, w, h: bytes([0, 0, rows - 1, columns - 1]) + w.to_bytes(2, "big") + h.to_bytes(2, "big")
    overlay = bytes([0, 0]) + b"\xff" * 8 + (64).to_bytes(2, "big") * 2 + bytes(4)
    files = {
        "h-overlay.heic": heif(1, [(1, b"iovl", (64, 64), overlay), (2, b"Exif", None, bytes(4))], [(b"dimg", 1, [2])]),
        "h-cycle.heic": heif(1, [(1, b"grid", (64, 64), grid(1, 1, 64, 64))], [(b"dimg", 1, [1])]),
        "h-amplified.heic": heif(1, [(1, b"grid", (512, 512), grid(16, 16, 512, 512)), (2, b"hvc1", (4096, 4096), b"")],
                                 [(b"dimg", 1, [2] * 256)]),
    }
    for name, data in files.items():
        with open(os.path.join(args.dir, name), "wb") as f:
            f.write(data)


def origin(args):
    counts, lock = {}, threading.Lock()

    class Handler(http.server.BaseHTTPRequestHandler):
        def log_message(self, *a):
            pass

        def do_GET(self):
            if self.path == "/__stats":
                with lock:
                    body = json.dumps(counts).encode()
            else:
                with lock:
                    counts[self.path] = counts.get(self.path, 0) + 1
                path = os.path.join(args.dir, os.path.basename(self.path))
                if not os.path.isfile(path):
                    self.send_response(404); self.send_header("Content-Length", "0"); self.end_headers(); return
                body = open(path, "rb").read()
            self.send_response(200)
            self.send_header("Content-Type", "application/json" if self.path == "/__stats" else "image/png")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
        daemon_threads = True
        allow_reuse_address = True

    Server(("127.0.0.1", args.port), Handler).serve_forever()


def load(args):
    """Sends --requests GETs (the URL list in order, round and round) with --concurrency threads
    over keep-alive connections; runs --fault-cmd once after --fault-at requests were sent."""
    urls = [line.strip() for line in open(args.urls) if line.strip()]
    host, port = args.target.split(":")
    results, lock = [], threading.Lock()
    next_index = [0]
    fault = [None, None]  # the fault's process, and the request index when it ended
    deadline = time.time() + args.max_seconds

    def take():
        with lock:
            index = next_index[0]
            if time.time() > deadline:
                return None
            if index >= args.requests:
                # With a fault, go on until it has ended and as many requests again have been sent.
                if not args.fault_cmd or fault[0] is None:
                    return None
                if fault[1] is None and fault[0].poll() is not None:
                    fault[1] = index
                if fault[1] is not None and index >= fault[1] + args.requests // 3:
                    return None
            next_index[0] += 1
            if args.fault_cmd and fault[0] is None and index >= args.fault_at:
                fault[0] = subprocess.Popen(args.fault_cmd, shell=True)
            return index

    def worker():
        connection = None
        while True:
            index = take()
            if index is None:
                break
            path = urls[index % len(urls)]
            start = time.perf_counter()
            status = 0
            try:
                if connection is None:
                    connection = http.client.HTTPConnection(host, int(port), timeout=30)
                connection.request("GET", path)
                response = connection.getresponse()
                response.read()
                status = response.status
                if response.getheader("Connection", "").lower() == "close":
                    connection.close(); connection = None
            except Exception:
                status = -1
                if connection is not None:
                    connection.close()
                connection = None
            with lock:
                results.append((index, status, (time.perf_counter() - start) * 1000))

    threads = [threading.Thread(target=worker) for _ in range(args.concurrency)]
    started = time.perf_counter()
    for t in threads: t.start()
    for t in threads: t.join()
    elapsed = time.perf_counter() - started
    if fault[0] is not None:
        fault[0].wait()
    latencies = sorted(r[2] for r in results)
    def pct(p):
        return latencies[min(len(latencies) - 1, max(0, int(len(latencies) * p + 0.999) - 1))] if latencies else 0
    errors = [r for r in results if r[1] != 200]
    summary = {"requests": len(results), "errors": len(errors), "seconds": round(elapsed, 3),
               "rps": round(len(results) / elapsed, 1) if elapsed else 0,
               "p50_ms": round(pct(0.50), 2), "p95_ms": round(pct(0.95), 2), "p99_ms": round(pct(0.99), 2),
               "error_indices": sorted(r[0] for r in errors)[:50],
               "error_statuses": sorted(set(r[1] for r in errors)),
               "fault_window": [args.fault_at, fault[1]] if fault[0] is not None else None}
    json.dump(summary, open(args.out, "w"))


def get_json(url):
    with urllib.request.urlopen(url, timeout=5) as response:
        return json.loads(response.read())


def table(args):
    summary = json.load(open(args.load))
    counts = get_json(f"http://127.0.0.1:{args.origin}/__stats")
    tiers, redis = {}, {}
    alive = 0
    for port in args.instances.split(","):
        try:
            health = get_json(f"http://127.0.0.1:{port}/health")
        except Exception:
            continue
        alive += 1
        for tier, n in health.get("results_by_tier", {}).items():
            tiers[tier] = tiers.get(tier, 0) + n
        for key, value in health.get("shared_cache", {}).items():
            if isinstance(value, int) and not isinstance(value, bool):
                redis[key] = redis.get(key, 0) + value
    served = sum(tiers.values()) or 1
    origin_total = sum(counts.values())
    rows = [
        ("scenario", args.scenario),
        ("requests", summary["requests"]), ("errors", summary["errors"]),
        ("throughput (req/s)", summary["rps"]),
        ("p50 / p95 / p99 (ms)", f'{summary["p50_ms"]} / {summary["p95_ms"]} / {summary["p99_ms"]}'),
        ("origin fetches (total)", origin_total),
        ("origin fetches per source (max)", max(counts.values()) if counts else 0),
        ("distinct sources fetched", len(counts)),
    ]
    for tier in ("memory", "disk", "shared", "made"):
        rows.append((f"results from {tier}", f'{tiers.get(tier, 0)} ({100 * tiers.get(tier, 0) / served:.1f}%)'))
    rows += [("redis hits / misses / errors / skipped",
              f'{redis.get("hits", 0)} / {redis.get("misses", 0)} / {redis.get("errors", 0)} / {redis.get("skipped", 0)}'),
             ("leases taken / waited / wait hits",
              f'{redis.get("leases_taken", 0)} / {redis.get("leases_waited", 0)} / {redis.get("lease_wait_hits", 0)}'),
             ("breaker openings", redis.get("breaker_openings", 0)),
             ("instances answering /health at the end", alive)]
    if summary.get("fault_window"):
        rows.append(("fault between requests", f'{summary["fault_window"][0]} and {summary["fault_window"][1]}'))
    if summary["errors"]:
        rows.append(("failed request indices (first 50)", summary["error_indices"]))
        rows.append(("failed statuses", summary["error_statuses"]))
    width = max(len(r[0]) for r in rows)
    print(f'\n{"-" * (width + 30)}')
    for name, value in rows:
        print(f"{name.ljust(width)}  {value}")
    print("-" * (width + 30))

def signed(key, salt, path):
    """`/SIGNATURE` + path, as imgproxy signs it: base64url(HMAC-SHA256(key, salt + path)), unpadded."""
    mac = hmac.new(bytes.fromhex(key), bytes.fromhex(salt) + path.encode(), hashlib.sha256).digest()
    return "/" + base64.urlsafe_b64encode(mac).decode().rstrip("=") + path


def fetch(port, path):
    """(ETag, short SHA-256 of the body) of a GET on one instance."""
    with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=30) as response:
        return response.headers.get("ETag", "-"), hashlib.sha256(response.read()).hexdigest()[:12]


def purge_check(args):
    """Every instance serves one result; the origin's file is replaced and the source purged
    through one instance; after the settle time every instance must serve the new result."""
    ports = [int(p) for p in args.instances.split(",")]
    path = signed(args.key, args.salt, args.path)
    before = [fetch(port, path) for port in ports]
    shutil.copyfile(args.replacement, args.origin_file + ".new")
    os.replace(args.origin_file + ".new", args.origin_file)
    started = time.monotonic()
    subprocess.run(args.purge_cmd, shell=True, check=True, timeout=60)
    purged = time.monotonic() - started
    time.sleep(args.settle)
    after = [fetch(port, path) for port in ports]
    print(f"purge answered in {purged * 1000:.0f} ms; instances asked again {args.settle} s later")
    print(f"{'instance':>8}  {'body before':>12}  {'body after':>12}  changed")
    for index, (old, new) in enumerate(zip(before, after)):
        print(f"{index + 1:>8}  {old[1]:>12}  {new[1]:>12}  {'yes' if old[1] != new[1] else 'NO'}")
    changed = all(old[1] != new[1] for old, new in zip(before, after))
    agreed = len({new for new in after}) == 1
    print("every instance serves the new image" if changed and agreed else "FAILED: an instance still serves the old image")
    sys.exit(0 if changed and agreed else 1)


def main():
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("sources"); p.add_argument("--dir"); p.add_argument("--count", type=int, default=20)
    p.add_argument("--width", type=int, default=640); p.add_argument("--height", type=int, default=480)
    p = sub.add_parser("origin"); p.add_argument("--dir"); p.add_argument("--port", type=int)
    p = sub.add_parser("hostile-heif"); p.add_argument("--dir")
    p = sub.add_parser("load"); p.add_argument("--target"); p.add_argument("--urls"); p.add_argument("--out")
    p.add_argument("--requests", type=int, default=600); p.add_argument("--concurrency", type=int, default=8)
    p.add_argument("--fault-at", type=int, default=0); p.add_argument("--fault-cmd", default="")
    p.add_argument("--max-seconds", type=float, default=300)
    p = sub.add_parser("table"); p.add_argument("--load"); p.add_argument("--origin", type=int)
    p.add_argument("--instances"); p.add_argument("--scenario", default="")
    p = sub.add_parser("purge-check"); p.add_argument("--instances"); p.add_argument("--path")
    p.add_argument("--key"); p.add_argument("--salt"); p.add_argument("--origin-file"); p.add_argument("--replacement")
    p.add_argument("--purge-cmd"); p.add_argument("--settle", type=float, default=1.5)
    args = parser.parse_args()
    {"sources": sources, "hostile-heif": hostile_heif, "origin": origin, "load": load, "table": table,
     "purge-check": purge_check}[args.command](args)


if __name__ == "__main__":
    main()
