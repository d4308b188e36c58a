#!/usr/bin/env python3
"""Checks the deployment files against the code, without a container engine.

    python3 deploy/check.py [LINECAST_API_BINARY]

- Every environment variable the Dockerfile, deploy/compose.yaml, the
  Kubernetes manifests (deploy/k8s) and deploy/local/cluster.sh set for
  linecast is read by the server: a LINECAST_* name must appear in
  apps/linecast-api/src/settings.rs and in docs/configuration.md; any other
  name (AWS_*, RUST_LOG) must be documented in docs/configuration.md.
- Secrets (database and Redis URLs, the signing key, object-store keys) are
  passed by reference in Kubernetes (secretKeyRef), never as values.
- Every probe path (HEALTHCHECK, Kubernetes probes, compose health checks)
  answers 200 from a running server (the binary given, default
  $CARGO_TARGET_DIR/debug/linecast-api, else target/debug/linecast-api, in
  production mode over fixtures/store), on the
  port the manifests bind.
- The memory request covers the cache budget plus 200 MB (operations.md,
  "Memory"), in Kubernetes and in compose.
- The nginx configuration of compose passes `nginx -t` (its upstream host
  names mapped to 127.0.0.1: the one thing not checked is Docker's DNS).
- nginx's access log carries no bearer secret: its log_format never names
  `$request`, `$request_uri`, `$args` or `$query_string` (the raw request
  line or query, with `?api_key=` keys), and its path map replaces the
  token segment of every `{token}` route template of the route table.
- The image builds the `dist` profile, and `dist` optimises every package
  `release` optimises less (Cargo.toml: `dist` inherits `release`'s
  per-package levels, so each needs its own entry back at 3).

Prints one line per check and exits 1 on the first failure.
"""
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import tomllib
import urllib.request

import yaml

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
SECRET_NAMES = {
    "LINECAST_DATABASE_URL",
    "LINECAST_REDIS_URL",
    "LINECAST_SIGNING_KEY",
    "AWS_ACCESS_KEY_ID",
    "AWS_SECRET_ACCESS_KEY",
}


def fail(what):
    print(f"FAIL: {what}")
    sys.exit(1)


def ok(what):
    print(f"ok: {what}")


def read(path):
    with open(os.path.join(ROOT, path)) as f:
        return f.read()


# ---------------------------------------------------------------- settings


def settings_names():
    """LINECAST_* names the server reads: string literals in settings.rs."""
    return set(re.findall(r'"(LINECAST_[A-Z0-9_]+)"', read("apps/linecast-api/src/settings.rs")))


def documented_names():
    return set(re.findall(r"`([A-Z][A-Z0-9_]+)`", read("docs/configuration.md")))


# ------------------------------------------------------------- the files


def dockerfile():
    """(ENV names with their values, HEALTHCHECK command) of the runtime stage."""
    text = read("Dockerfile")
    joined = re.sub(r"\\\n", " ", text)
    runtime = joined.split("AS runtime", 1)[1]
    env = {}
    health = None
    for line in runtime.splitlines():
        line = line.strip()
        if line.startswith("ENV "):
            for name, value in re.findall(r"([A-Za-z_][A-Za-z0-9_]*)=(\S+)", line[4:]):
                env[name] = value
        if line.startswith("HEALTHCHECK "):
            health = line
    if health is None:
        fail("the Dockerfile's runtime stage has a HEALTHCHECK")
    return env, health


def compose():
    doc = yaml.safe_load(read("deploy/compose.yaml"))
    return doc


def linecast_services(doc):
    """Services running the linecast image (built here)."""
    out = {}
    for name, svc in doc["services"].items():
        if svc.get("image", "").startswith("linecast") or "build" in svc:
            out[name] = svc
    return out


def k8s_docs():
    docs = []
    kustomization = yaml.safe_load(read("deploy/k8s/kustomization.yaml"))
    for resource in kustomization["resources"]:
        path = os.path.join("deploy/k8s", resource)
        if not os.path.exists(os.path.join(ROOT, path)):
            fail(f"kustomization lists {resource}, which exists")
        docs.extend(d for d in yaml.safe_load_all(read(path)) if d)
    return docs


def cluster_script_names():
    """LINECAST_* names deploy/local/cluster.sh sets for the instances."""
    text = read("deploy/local/cluster.sh")
    return set(re.findall(r"\b(LINECAST_[A-Z0-9_]+)=", text))


# ----------------------------------------------------------------- checks


def check_names(where, names, known, documented):
    for name in sorted(names):
        if name.startswith("LINECAST_"):
            if name not in known:
                fail(f"{where} sets {name}, which apps/linecast-api/src/settings.rs does not read")
            if name not in documented:
                fail(f"{where} sets {name}, which docs/configuration.md does not document")
        elif name not in documented:
            fail(f"{where} sets {name}, which docs/configuration.md does not document")
    ok(f"{where}: {len(names)} variables, each read by the server and documented")


def port_of(bind):
    return int(bind.rsplit(":", 1)[1])


def mib(quantity):
    units = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "k": 10**3, "M": 10**6, "G": 10**9, "m": 10**6}
    match = re.fullmatch(r"(\d+)([A-Za-z]*)", str(quantity))
    if not match:
        fail(f"memory quantity {quantity} reads")
    number, unit = int(match.group(1)), match.group(2)
    return number * units.get(unit, 1)


def check_memory(where, request_bytes, budget):
    need = int(budget) + 200 * 10**6
    if request_bytes < need:
        fail(f"{where}: memory request {request_bytes} B covers the budget {budget} B plus 200 MB")
    ok(f"{where}: memory request {request_bytes / 2**20:.0f} MiB covers the budget plus 200 MB ({need / 2**20:.0f} MiB)")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def get(url):
    try:
        with urllib.request.urlopen(url, timeout=10) as res:
            return res.status
    except urllib.error.HTTPError as e:
        return e.code
    except OSError:
        return None


def check_probes(binary, paths):
    if not os.path.exists(binary):
        fail(f"{binary} exists (build it: cargo build -p linecast-api)")
    work = tempfile.mkdtemp(prefix="linecast-check-")
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("LINECAST_")}
    env.update(
        LINECAST_BIND=f"127.0.0.1:{port}",
        LINECAST_DATABASE_URL=f"sqlite://{work}/accounts.db?mode=rwc",
        LINECAST_STORE_URL=f"file://{ROOT}/fixtures/store",
        LINECAST_VAR_DIR=work,
        LINECAST_DEMO="false",
        LINECAST_NOW="2026-11-15T17:00:00Z",
        LINECAST_DRAIN_GRACE_SECS="0",
        RUST_LOG="warn",
    )
    log = open(os.path.join(work, "server.log"), "w")
    server = None
    try:
        server = subprocess.Popen([binary], env=env, cwd=work, stdout=log, stderr=log)
        base = f"http://127.0.0.1:{port}"
        deadline = time.time() + 120
        while get(base + "/api/v1/liveness") != 200:
            if server.poll() is not None or time.time() > deadline:
                log.flush()
                print(open(os.path.join(work, "server.log")).read())
                fail("the server starts for the probe check")
            time.sleep(0.2)
        deadline = time.time() + 30
        for path in sorted(paths):
            while True:
                status = get(base + path)
                if status == 200:
                    break
                if time.time() > deadline:
                    fail(f"probe path {path} answers 200 (got {status})")
                time.sleep(0.5)
            ok(f"probe path {path} answers 200")
    finally:
        if server is not None:
            server.terminate()
            try:
                server.wait(timeout=30)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait()
        log.close()
        shutil.rmtree(work, ignore_errors=True)


def check_log_format(conf_text):
    formats = re.findall(r"log_format\s+\w+((?:\s+'[^']*')+)\s*;", conf_text)
    if not formats:
        fail("deploy/nginx/linecast.conf defines a log_format")
    for fmt in formats:
        for variable in ("$request", "$request_uri", "$args", "$query_string", "$arg_api_key"):
            if re.search(re.escape(variable) + r"(?![A-Za-z0-9_])", fmt):
                fail(f"the nginx log_format does not log {variable} (it carries keys and tokens)")
    table = read("apps/linecast-api/src/routes/table.rs")
    templates = sorted(set(re.findall(r'"(/[^"]*\{token\}[^"]*)"', table)))
    if not templates:
        fail("the route table has {token} templates (sign-in and download links)")
    for template in templates:
        prefix = template.split("{token}")[0]
        if f'"~*^(?<lc_pre>.*{prefix})[^/]*(?<lc_post>.*)$"' not in conf_text:
            fail(f"the nginx log map replaces the token of {template}")
    ok(f"nginx logs no query key and no token of {', '.join(templates)}")


def check_nginx(conf_text):
    nginx = shutil.which("nginx") or "/usr/sbin/nginx"
    if not os.path.exists(nginx):
        fail("nginx is installed (apt-get install -y nginx)")
    work = tempfile.mkdtemp(prefix="linecast-nginx-")
    try:
        os.makedirs(os.path.join(work, "conf.d"))
        os.makedirs(os.path.join(work, "linecast"))
        os.makedirs(os.path.join(work, "logs"))
        # The compose service names resolve only on Docker's network.
        local = re.sub(r"\bserver linecast-\d+:", "server 127.0.0.1:", conf_text)
        local = local.replace("/var/log/nginx/", f"{work}/logs/")
        with open(os.path.join(work, "conf.d", "default.conf"), "w") as f:
            f.write(local)
        shutil.copy(os.path.join(ROOT, "deploy/nginx/proxy.conf"), os.path.join(work, "linecast", "proxy.conf"))
        # The official image's nginx.conf, reduced to what matters here.
        with open(os.path.join(work, "nginx.conf"), "w") as f:
            f.write(
                f"pid {work}/nginx.pid;\nerror_log {work}/logs/error.log;\n"
                "events { worker_connections 1024; }\n"
                f"http {{\n  access_log {work}/logs/access.log;\n  include {work}/conf.d/*.conf;\n}}\n"
            )
        result = subprocess.run(
            [nginx, "-t", "-p", work, "-c", os.path.join(work, "nginx.conf")],
            capture_output=True,
            text=True,
        )
        if result.returncode != 0:
            print(result.stderr)
            fail("deploy/nginx/linecast.conf with proxy.conf passes nginx -t")
        ok("deploy/nginx/linecast.conf with proxy.conf passes nginx -t")
    finally:
        shutil.rmtree(work, ignore_errors=True)


def check_profiles(dockerfile_text):
    with open(os.path.join(ROOT, "Cargo.toml"), "rb") as f:
        profiles = tomllib.load(f)["profile"]
    release = profiles["release"].get("package", {})
    dist = profiles["dist"]
    if dist.get("inherits") != "release" or dist.get("lto") != "fat" or dist.get("codegen-units") != 1:
        fail("the dist profile inherits release with fat LTO and one codegen unit")
    lowered = sorted(n for n, o in release.items() if "opt-level" in o and o["opt-level"] != 3)
    if not lowered:
        fail("release lowers the optimisation of some dependencies (else this check checks nothing)")
    for name in lowered:
        if dist.get("package", {}).get(name, {}).get("opt-level") != 3:
            fail(f"dist sets {name} back to opt-level 3 (release lowers it; dist would inherit that)")
    ok(f"dist optimises at level 3 the {len(lowered)} packages release builds at a lower level")
    if not re.search(r"^ARG PROFILE=dist$", dockerfile_text, re.M) or '--profile "${PROFILE}"' not in dockerfile_text:
        fail("the Dockerfile builds the dist profile by default")
    ok("the Dockerfile builds the dist profile by default")


def main():
    target = os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target"))
    binary = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(target, "debug/linecast-api"))
    known, documented = settings_names(), documented_names()
    if len(known) < 20:
        fail(f"settings.rs names its variables as string literals (found {len(known)})")
    probe_paths = set()

    # Dockerfile
    env, health = dockerfile()
    check_names("Dockerfile", set(env), known, documented)
    match = re.search(r"https?://[^/\s]+:(\d+)(/\S*)", health)
    if not match:
        fail("the HEALTHCHECK names a URL with a port")
    if int(match.group(1)) != port_of(env["LINECAST_BIND"]):
        fail(f"the HEALTHCHECK port {match.group(1)} is the image's LINECAST_BIND port")
    probe_paths.add(match.group(2))
    ok(f"Dockerfile HEALTHCHECK polls {match.group(2)} on the bound port")
    image_port = port_of(env["LINECAST_BIND"])

    # compose
    doc = compose()
    services = linecast_services(doc)
    if len([n for n in services if n.startswith("linecast-")]) != 3:
        fail("compose runs three linecast instances")
    for name, svc in services.items():
        environment = svc.get("environment") or {}
        if isinstance(environment, list):
            environment = dict(item.split("=", 1) for item in environment)
        check_names(f"compose service {name}", set(environment), known, documented)
        hc = svc.get("healthcheck", {}).get("test")
        if hc:
            found = re.search(r"https?://[^/\s]+:(\d+)(/[^\s\"']*)", " ".join(hc) if isinstance(hc, list) else hc)
            if found:
                probe_paths.add(found.group(2))
        if name.startswith("linecast-"):
            bind = environment.get("LINECAST_BIND", env["LINECAST_BIND"])
            if port_of(bind) != image_port:
                fail(f"compose service {name} listens on the port the image's health check polls")
            check_memory(f"compose service {name}", mib(str(svc.get("mem_reservation", "0")).replace("m", "Mi")),
                         environment.get("LINECAST_CACHE_BYTES", "167772160"))
    upstream = read("deploy/nginx/linecast.conf")
    for name in (n for n in services if n.startswith("linecast-")):
        if f"server {name}:{image_port}" not in upstream:
            fail(f"the nginx upstream names {name}:{image_port}")
    ok("the nginx upstream names the three compose instances on the image's port")

    # Kubernetes
    docs = k8s_docs()
    kinds = {d["kind"]: d for d in docs}
    for kind in ("Deployment", "Service", "PodDisruptionBudget", "ConfigMap"):
        if kind not in kinds:
            fail(f"deploy/k8s has a {kind}")
    deployment, configmap = kinds["Deployment"], kinds["ConfigMap"]
    labels = deployment["spec"]["template"]["metadata"]["labels"]
    for kind in ("Service", "PodDisruptionBudget"):
        selector = kinds[kind]["spec"]["selector"]
        selector = selector.get("matchLabels", selector)
        if any(labels.get(k) != v for k, v in selector.items()):
            fail(f"the {kind} selects the Deployment's pods")
    ok("the Service and the PodDisruptionBudget select the Deployment's pods")
    pdb = kinds["PodDisruptionBudget"]["spec"]
    if not (pdb.get("minAvailable", 0) >= 1 or "maxUnavailable" in pdb):
        fail("the PodDisruptionBudget keeps pods available")
    for secret in SECRET_NAMES:
        if secret in (configmap.get("data") or {}):
            fail(f"{secret} is not in the ConfigMap (a secret goes by reference)")
    k8s_env = set(configmap.get("data") or {})
    for container in deployment["spec"]["template"]["spec"]["containers"]:
        for source in container.get("envFrom", []):
            ref = source.get("configMapRef", {}).get("name")
            if ref and ref != configmap["metadata"]["name"]:
                fail(f"envFrom names the ConfigMap {ref} of deploy/k8s")
        for item in container.get("env", []):
            k8s_env.add(item["name"])
            if item["name"] in SECRET_NAMES and "secretKeyRef" not in item.get("valueFrom", {}):
                fail(f"{item['name']} is passed by reference (valueFrom.secretKeyRef)")
        check_names("deploy/k8s (ConfigMap and env)", k8s_env, known, documented)
        ok("secrets reach the pods by secretKeyRef only")
        ports = {p["name"]: p["containerPort"] for p in container["ports"]}
        bind_port = port_of(configmap["data"].get("LINECAST_BIND", env["LINECAST_BIND"]))
        for probe in ("readinessProbe", "livenessProbe", "startupProbe"):
            spec = container.get(probe)
            if not spec:
                if probe == "startupProbe":
                    continue
                fail(f"the container has a {probe}")
            http = spec["httpGet"]
            port = ports.get(http["port"], http["port"])
            if port != bind_port:
                fail(f"the {probe} polls port {port}, the one LINECAST_BIND listens on ({bind_port})")
            probe_paths.add(http["path"])
        if container["readinessProbe"]["httpGet"]["path"] != "/api/v1/readiness":
            fail("the readiness probe is /api/v1/readiness")
        if container["livenessProbe"]["httpGet"]["path"] != "/api/v1/liveness":
            fail("the liveness probe is /api/v1/liveness")
        ok("readiness and liveness probes poll /api/v1/readiness and /api/v1/liveness on the bound port")
        check_memory("deploy/k8s Deployment", mib(container["resources"]["requests"]["memory"]),
                     configmap["data"].get("LINECAST_CACHE_BYTES", "167772160"))
        grace = float(configmap["data"].get("LINECAST_DRAIN_GRACE_SECS", "5"))
        period = deployment["spec"]["template"]["spec"].get("terminationGracePeriodSeconds", 30)
        if period < grace + 15:
            fail(f"terminationGracePeriodSeconds ({period}) leaves the drain grace ({grace} s) and 15 s of drain")
        ok(f"terminationGracePeriodSeconds {period} covers the drain grace ({grace:g} s) and the drain")

    # The local cluster's own variables
    check_names("deploy/local/cluster.sh", cluster_script_names(), known, documented)

    check_profiles(read("Dockerfile"))
    check_probes(binary, probe_paths)
    check_log_format(upstream)
    check_nginx(upstream)
    print("deploy check: all passed")


if __name__ == "__main__":
    main()
