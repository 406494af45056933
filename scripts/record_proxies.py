#!/usr/bin/env python3
"""Record where the real proxies send keys: twemproxy (nutcracker) and nginx.

Writes one trace per configuration under tests/data/proxies/, read by
tests/suite/proxies.rs. Each trace starts with `# ` lines giving the exact
configuration (program, version, distribution, hash, hash_tag, one
`# server:` line per backend as written in the config) and then one line per
key: `key<TAB>backend address`, where the backend address is the
`127.0.0.1:port` of the backend that ended up holding the key.

How it records (run from the repository root: `python3 scripts/record_proxies.py`):

twemproxy
  * starts 4 backends: `redis-server --port P --bind 127.0.0.1 --save ''
    --appendonly no --daemonize no` on free ports;
  * for each case writes a nutcracker YAML config (printed in the trace header:
    listen 127.0.0.1:<free port>, redis: true, the case's hash,
    distribution, hash_tag and servers) and starts
    `nutcracker -c <conf> -s <free stats port> -a 127.0.0.1 -o <log> -v 5`;
  * sends `SET key 1` for every key through the proxy (RESP, pipelined),
    then `KEYS *` on each backend directly, and `FLUSHALL` after.

nginx
  * one `nginx -p <tmp> -e <tmp>/error.log -c <tmp>/nginx.conf -g 'daemon off; pid <tmp>/nginx.pid;'`
    with `worker_processes 1`; the config holds 4 backends
    `server { listen 127.0.0.1:Pi; return 200 "127.0.0.1:Pi"; }`, one
    `upstream` per case (`hash $arg_key consistent;` or `hash $arg_key;`,
    servers `127.0.0.1:Pi` with optional `weight=`), and one
    `location /<case>/ { proxy_pass http://<case>; }` per case;
  * asks `GET /<case>/?key=<key>` for every key (http.client, keep-alive) and
    records the body, i.e. the backend that answered.

Failures: the `*_eject` twemproxy cases set `auto_eject_hosts: true`,
`server_failure_limit: 1`, `server_retry_timeout: 600000` and list one server
(header `# ejected: <name>`) on a free port where nothing listens; before the
recorded keys, `SET warm:<i> 1` is sent one request at a time until one fails
(that server is ejected then), and the recorded keys are sent after. The
nginx `*_down` cases mark one server `down` in the upstream.

Everything binds 127.0.0.1 and is stopped at the end.

`python3 scripts/record_proxies.py [NAME-PREFIX ...]` records only the
cases whose names start with one of the prefixes (all of them without).
"""

import http.client
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "tests", "data", "proxies")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_port(port, timeout=10.0):
    end = time.time() + timeout
    while time.time() < end:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"nothing listens on 127.0.0.1:{port}")


# ------------------------------------------------------------------ keys --

def plain_keys(n):
    return [f"key:{i}" for i in range(n)]


def special_keys():
    """Keys that exercise the hashes' corners: every length 1..16 (tails of
    the 4- and 12-byte block hashes), bytes >= 0x80 (twemproxy reads them as
    signed char), hash tags, empty tags and unclosed tags."""
    keys = []
    for n in range(1, 17):
        keys.append("abcdefghijklmnopq"[:n])
    keys += ["é", "zé", "xyé", "ключ", "ключ:1", "ключ:22", "日本語", "naïve:7",
             "ü", "aü", "abü", "abcü", "\u00ff", "caf\u00e9:12345"]
    keys += ["user:{42}:name", "user:{42}:cart", "{42}", "x{}y", "x{}{7}", "{}",
             "a{b", "a}b{c}", "{{x}}", "user:{ключ}:1", "user:{}:{9}",
             "tag{" + "7" * 30 + "}", "k:42:v", "::", "a::b", ":x:", "q:9"]
    return keys


# --------------------------------------------------------- redis (RESP) --

def resp_cmd(*parts):
    out = [b"*%d\r\n" % len(parts)]
    for p in parts:
        if isinstance(p, str):
            p = p.encode()
        out.append(b"$%d\r\n%s\r\n" % (len(p), p))
    return b"".join(out)


class Resp:
    def __init__(self, port):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=30)
        self.buf = b""

    def _line(self):
        while b"\r\n" not in self.buf:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise RuntimeError("connection closed")
            self.buf += chunk
        line, self.buf = self.buf.split(b"\r\n", 1)
        return line

    def _exact(self, n):
        while len(self.buf) < n + 2:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise RuntimeError("connection closed")
            self.buf += chunk
        data, self.buf = self.buf[:n], self.buf[n + 2:]
        return data

    def reply(self):
        line = self._line()
        t, rest = line[:1], line[1:]
        if t == b"+":
            return rest.decode()
        if t == b"-":
            raise RuntimeError("redis error: " + rest.decode())
        if t == b":":
            return int(rest)
        if t == b"$":
            n = int(rest)
            return None if n < 0 else self._exact(n)
        if t == b"*":
            return [self.reply() for _ in range(int(rest))]
        raise RuntimeError(f"bad reply {line!r}")

    def pipeline(self, cmds):
        self.sock.sendall(b"".join(cmds))
        return [self.reply() for _ in cmds]

    def close(self):
        self.sock.close()


# -------------------------------------------------------------- twemproxy --

TWEM_CASES = [
    # name, distribution, hash, hash_tag, [(weight, name or None)], keys
    ("twem_ketama_fnv1a64_3_named", "ketama", "fnv1a_64", None, [(1, "alpha"), (1, "beta"), (1, "gamma")]),
    ("twem_ketama_fnv1a64_3_addr", "ketama", "fnv1a_64", None, [(1, None)] * 3),
    ("twem_ketama_fnv1a64_4_named", "ketama", "fnv1a_64", None,
     [(1, "alpha"), (1, "beta"), (1, "gamma"), (1, "delta")]),
    ("twem_ketama_fnv1a64_weights", "ketama", "fnv1a_64", None, [(1, "alpha"), (2, "beta"), (3, "gamma")]),
    ("twem_ketama_fnv1a64_weights_addr", "ketama", "fnv1a_64", None, [(3, None), (1, None), (1, None), (2, None)]),
    ("twem_modula_fnv1a64_3_named", "modula", "fnv1a_64", None, [(1, "alpha"), (1, "beta"), (1, "gamma")]),
    # names whose twemproxy order (shorter first, then bytes) is not the config order
    ("twem_modula_fnv1a64_sorted", "modula", "fnv1a_64", None, [(1, "server10"), (2, "server9"), (1, "a")]),
    ("twem_ketama_hashtag", "ketama", "fnv1a_64", "{}", [(1, "alpha"), (1, "beta"), (1, "gamma")]),
    ("twem_modula_hashtag_colons", "modula", "murmur", "::", [(1, "alpha"), (1, "beta"), (1, "gamma"), (1, "delta")]),
]
for h in ["md5", "crc32a", "murmur", "one_at_a_time", "fnv1_64", "fnv1a_32", "fnv1_32",
          "crc32", "crc16", "hsieh", "jenkins"]:
    TWEM_CASES.append((f"twem_ketama_{h}", "ketama", h, None, [(1, "alpha"), (1, "beta"), (1, "gamma")]))
for h in ["md5", "one_at_a_time", "crc16", "crc32", "hsieh", "jenkins", "fnv1_64"]:
    TWEM_CASES.append((f"twem_modula_{h}", "modula", h, None,
                       [(1, "alpha"), (1, "beta"), (1, "gamma"), (1, "delta")]))
# auto_eject_hosts: the server at this index is dead and gets ejected
EJECT = {"twem_ketama_fnv1a64_eject": 1, "twem_modula_md5_eject": 2}
TWEM_CASES += [
    ("twem_ketama_fnv1a64_eject", "ketama", "fnv1a_64", None, [(1, "alpha"), (1, "beta"), (1, "gamma")]),
    ("twem_modula_md5_eject", "modula", "md5", None, [(1, "alpha"), (1, "beta"), (1, "gamma"), (1, "delta")]),
]


def twem_version():
    out = subprocess.run(["nutcracker", "--version"], capture_output=True, text=True)
    return (out.stdout + out.stderr).strip().splitlines()[0]


def record_twemproxy(tmp, keys, wanted):
    ports = [free_port() for _ in range(4)]
    procs = []
    try:
        for p in ports:
            procs.append(subprocess.Popen(
                ["redis-server", "--port", str(p), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
                 "--daemonize", "no"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        for p in ports:
            wait_port(p)
        version = twem_version()
        for case, dist, hsh, tag, servers in TWEM_CASES:
            if not wanted(case):
                continue
            dead = EJECT.get(case)
            used = [free_port() if i == dead else p for i, p in enumerate(ports[:len(servers)])]
            lines = []
            for (w, name), p in zip(servers, used):
                lines.append(f"127.0.0.1:{p}:{w}" + (f" {name}" if name else ""))
            listen, stats = free_port(), free_port()
            conf = [f"pool:", f"  listen: 127.0.0.1:{listen}", f"  redis: true",
                    f"  distribution: {dist}", f"  hash: {hsh}"]
            if tag:
                conf.append(f'  hash_tag: "{tag}"')
            if dead is not None:
                conf += ["  auto_eject_hosts: true", "  server_failure_limit: 1", "  server_retry_timeout: 600000"]
            conf.append("  servers:")
            conf += [f"   - {l}" for l in lines]
            path = os.path.join(tmp, f"{case}.yml")
            with open(path, "w") as f:
                f.write("\n".join(conf) + "\n")
            cmd = ["nutcracker", "-c", path, "-s", str(stats), "-a", "127.0.0.1",
                   "-o", os.path.join(tmp, f"{case}.log"), "-v", "5"]
            proxy = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            try:
                wait_port(listen)
                c = Resp(listen)
                if dead is not None:
                    failed = 0
                    for i in range(1000):
                        try:
                            c.pipeline([resp_cmd("SET", f"warm:{i}", "1")])
                        except RuntimeError:
                            failed += 1
                            break
                    assert failed, f"{case}: no request failed, nothing ejected"
                    time.sleep(0.5)
                    c.close()
                    c = Resp(listen)
                replies = c.pipeline([resp_cmd("SET", k.encode(), "1") for k in keys])
                c.close()
                assert all(r == "OK" for r in replies), replies[:5]
            finally:
                proxy.terminate()
                proxy.wait()
            where = {}
            for i, p in enumerate(used):
                if i == dead:
                    continue
                b = Resp(p)
                for k in b.pipeline([resp_cmd("KEYS", "*")])[0]:
                    if not k.startswith(b"warm:"):
                        where[k.decode()] = f"127.0.0.1:{p}"
                b.pipeline([resp_cmd("FLUSHALL")])
                b.close()
            missing = [k for k in keys if k not in where]
            assert not missing, f"{case}: keys not found on any backend: {missing[:5]}"
            header = [f"recorded by scripts/record_proxies.py with {version}",
                      "program: twemproxy", f"distribution: {dist}", f"hash: {hsh}"]
            if tag:
                header.append(f"hash_tag: {tag}")
            header += [f"server: {l}" for l in lines]
            if dead is not None:
                header.append(f"ejected: {servers[dead][1]}")
            header += ["config:"] + ["  " + l for l in conf]
            write_trace(case, header, [(k, where[k]) for k in keys])
    finally:
        for p in procs:
            p.terminate()
        for p in procs:
            p.wait()


# ------------------------------------------------------------------ nginx --

NGINX_CASES = [
    # name, consistent?, [weight], index of a server marked down
    ("nginx_chash_3", True, [1, 1, 1], None),
    ("nginx_chash_4", True, [1, 1, 1, 1], None),
    ("nginx_chash_weight2", True, [1, 2, 1], None),
    ("nginx_hash_3", False, [1, 1, 1], None),
    ("nginx_hash_weights", False, [2, 1, 3, 1], None),
    ("nginx_chash_3_down", True, [1, 1, 1], 1),
    ("nginx_hash_3_down", False, [1, 1, 1], 1),
    ("nginx_hash_weights_down", False, [2, 1, 3, 1], 2),
]


def nginx_version():
    out = subprocess.run(["nginx", "-v"], capture_output=True, text=True)
    return (out.stdout + out.stderr).strip()


def record_nginx(tmp, keys, wanted):
    ports = [free_port() for _ in range(4)]
    listen = free_port()
    conf = ["worker_processes 1;", f"error_log {tmp}/error.log;", "events { worker_connections 64; }", "http {",
            f"  access_log off;", f"  client_body_temp_path {tmp}/body;", f"  proxy_temp_path {tmp}/proxy;",
            f"  fastcgi_temp_path {tmp}/fastcgi;", f"  uwsgi_temp_path {tmp}/uwsgi;", f"  scgi_temp_path {tmp}/scgi;"]
    for p in ports:
        conf.append(f'  server {{ listen 127.0.0.1:{p}; location / {{ return 200 "127.0.0.1:{p}"; }} }}')
    cases = []
    for case, consistent, weights, down in NGINX_CASES:
        if not wanted(case):
            continue
        servers = [f"127.0.0.1:{p}" + (f" weight={w}" if w != 1 else "") + (" down" if i == down else "")
                   for i, (p, w) in enumerate(zip(ports, weights))]
        method = "hash $arg_key consistent;" if consistent else "hash $arg_key;"
        conf.append(f"  upstream {case} {{ {method} " + " ".join(f"server {s};" for s in servers) + " }")
        cases.append((case, method, servers))
    conf.append(f"  server {{ listen 127.0.0.1:{listen};")
    for case, _, _ in cases:
        conf.append(f"    location /{case}/ {{ proxy_pass http://{case}; }}")
    conf += ["  }", "}"]
    path = os.path.join(tmp, "nginx.conf")
    with open(path, "w") as f:
        f.write("\n".join(conf) + "\n")
    proc = subprocess.Popen(["nginx", "-p", tmp, "-e", f"{tmp}/error.log", "-c", path, "-g", f"daemon off; pid {tmp}/nginx.pid;"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_port(listen)
        version = nginx_version()
        for case, method, servers in cases:
            c = http.client.HTTPConnection("127.0.0.1", listen, timeout=10)
            rows = []
            for k in keys:
                c.request("GET", f"/{case}/?key={k}")
                r = c.getresponse()
                body = r.read().decode()
                assert r.status == 200, (case, k, r.status, body)
                rows.append((k, body.strip()))
            c.close()
            header = [f"recorded by scripts/record_proxies.py with {version}", "program: nginx",
                      f"method: {method}"]
            header += [f"server: {s}" for s in servers]
            write_trace(case, header, rows)
    finally:
        proc.terminate()
        proc.wait()


def write_trace(case, header, rows):
    path = os.path.join(OUT, f"{case}.txt")
    with open(path, "w", encoding="utf-8") as f:
        for h in header:
            f.write(f"# {h}\n")
        for k, s in rows:
            assert "\t" not in k and "\n" not in k
            f.write(f"{k}\t{s}\n")
    print(f"{path}: {len(rows)} keys")


def main():
    for prog in ["nutcracker", "redis-server", "nginx"]:
        if shutil.which(prog) is None:
            sys.exit(f"{prog} is not on PATH")
    os.makedirs(OUT, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix="reshard-proxies-")
    try:
        prefixes = sys.argv[1:]
        wanted = lambda case: not prefixes or any(case.startswith(p) for p in prefixes)
        record_twemproxy(tmp, plain_keys(600) + special_keys(), wanted)
        # nginx: keys are sent raw in the query string, so only URL-safe ones
        record_nginx(tmp, plain_keys(1000), wanted)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
