#!/usr/bin/env python3
"""Checks the deployment files against the code, without a container engine.

    python3 deploy/check.py [LINECAST_API_BINARY]

- Every environment variable the Dockerfile, deploy/compose.yaml, the
  Kubernetes manifests (deploy/k8s, the ConfigMap generated from
  linecast.env included), the Cloud Run service (deploy/cloudrun) and
  deploy/local/cluster.sh set for linecast is read by the server: a
  LINECAST_* name must appear in crates/linecast-settings/src/ and in
  docs/configuration.md; any other name (AWS_*, PORT, RUST_LOG) must be
  documented in docs/configuration.md.
- Secrets (SECRET_NAMES: database and Redis URLs, the signing key, the
  Stripe webhook secrets, object-store keys, the GCS key) are passed by
  reference in Kubernetes and Cloud Run (secretKeyRef), never as values,
  and in compose only from deploy/.env (a `${NAME}` reference without a
  default; deploy/.env.example names every one). A variable naming a
  credentials file (SECRET_FILE_NAMES: the GCS key file) must point into a
  mounted Secret. A form that sets LINECAST_REDIS_URL without
  LINECAST_SIGNING_KEY gets a warning (a per-process key: links signed by
  one instance fail on the others).
- The image's HEALTHCHECK is the binary's own `linecast-api healthcheck`
  (no curl in the image, no package manager in its runtime stage), and it
  answers 0 against the running server below and 1 against a closed port.
- Every probe path (Kubernetes and Cloud Run probes, compose health checks)
  answers 200 from a running server (the binary given, default
  $CARGO_TARGET_DIR/debug/linecast-api, else target/debug/linecast-api, in
  production mode over fixtures/store), on the
  port the manifests bind. Readiness tolerates a blip (failureThreshold
  above 1).
- Kubernetes: a ServiceAccount without a token used by the pods, a
  NetworkPolicy selecting them, a PodDisruptionBudget of maxUnavailable 1,
  the ConfigMap generated (configMapGenerator), and a migration Job whose
  pods the Service does not select. Compose: every service running the
  linecast image builds it, every service is read-only without
  capabilities or new privileges, every published port names its
  interface, and the instances wait for the `migrate` service. Cloud Run:
  CPU always allocated and a drain grace that fits its 10 s kill window.
- Migrations have one owner: compose's `migrate` service, the Kubernetes
  migration Job and the Cloud Run job (deploy/cloudrun/migrate-job.yaml)
  run `linecast-admin migrate` from the servers' image, and no server
  sets LINECAST_MIGRATE=true beside them.
- The memory request covers the cache budget plus 200 MB (operations.md,
  "Memory"), in Kubernetes and in compose.
- Every form that runs the server behind a proxy (compose's instances,
  Kubernetes, Cloud Run, deploy/local/cluster.sh) names where the client
  address comes from: LINECAST_CLIENT_IP_HEADER and
  LINECAST_TRUSTED_PROXY_CIDRS set, LINECAST_TRUSTED_PROXIES a whole number
  of at least 1 when set. Without them every client shares the proxy's
  address in the per-address limits (client_address_problem; checked
  against forms that must fail before the files are read).
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
    "LINECAST_STRIPE_WEBHOOK_SECRETS",
    "LINECAST_STRIPE_API_KEY",
    "AWS_ACCESS_KEY_ID",
    "AWS_SECRET_ACCESS_KEY",
    "GOOGLE_SERVICE_ACCOUNT_KEY",
}
# Variables naming a file that holds a credential (a GCS service-account
# key, application-default credentials): the file must come from a Secret.
SECRET_FILE_NAMES = {
    "GOOGLE_SERVICE_ACCOUNT",
    "GOOGLE_APPLICATION_CREDENTIALS",
}
# The longest a request may take to finish after the listener closes
# (apps/linecast-api/src/startup.rs, SHUTDOWN_TIMEOUT_SECS).
IN_FLIGHT_SECS = 10
# After the drain, the releases and the final usage flush take at most this
# long (startup.rs, run_until_stopped).
WIND_DOWN_SECS = 2
# Cloud Run sends SIGKILL this long after SIGTERM.
CLOUD_RUN_KILL_SECS = 10


def fail(what):
    print(f"FAIL: {what}")
    sys.exit(1)


def ok(what):
    print(f"ok: {what}")


def warn(what):
    print(f"WARNING: {what}")


def check_redis_signing(where, names):
    """Redis means several instances; without a shared signing key each
    signs download links with its own random key."""
    if "LINECAST_REDIS_URL" in names and "LINECAST_SIGNING_KEY" not in names:
        warn(f"{where} sets LINECAST_REDIS_URL without LINECAST_SIGNING_KEY: each instance signs links with "
             "its own random key, so a link from one fails on the others")


def read(path):
    with open(os.path.join(ROOT, path)) as f:
        return f.read()


# ---------------------------------------------------------------- settings


SETTINGS_DIR = "crates/linecast-settings/src"


def settings_names():
    """LINECAST_* names the server reads: string literals in the settings
    module (one file per area)."""
    names = set()
    for name in sorted(os.listdir(os.path.join(ROOT, SETTINGS_DIR))):
        if name.endswith(".rs"):
            names |= set(re.findall(r'"(LINECAST_[A-Z0-9_]+)"', read(f"{SETTINGS_DIR}/{name}")))
    return names


def documented_names():
    return set(re.findall(r"`([A-Z][A-Z0-9_]+)`", read("docs/configuration.md")))


# ------------------------------------------------------------- the files


def dockerfile():
    """(ENV names with their values, HEALTHCHECK command, the runtime stage's
    RUN lines) of the runtime stage."""
    text = read("Dockerfile")
    joined = re.sub(r"\\\n", " ", text)
    runtime = joined.split("AS runtime", 1)[1]
    env = {}
    health = None
    runs = []
    for line in runtime.splitlines():
        line = line.strip()
        if line.startswith("ENV "):
            for name, value in re.findall(r"([A-Za-z_][A-Za-z0-9_]*)=(\S+)", line[4:]):
                env[name] = value
        if line.startswith("HEALTHCHECK "):
            health = line
        if line.startswith("RUN "):
            runs.append(line)
    if health is None:
        fail("the Dockerfile's runtime stage has a HEALTHCHECK")
    return env, health, runs


def image_bind(env):
    """The address the image listens on: LINECAST_BIND, else 0.0.0.0:$PORT
    (settings/server.rs, bind_address)."""
    if "LINECAST_BIND" in env:
        return env["LINECAST_BIND"]
    if "PORT" in env:
        return f"0.0.0.0:{env['PORT']}"
    return "127.0.0.1:8080"


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


def env_file(path):
    """NAME=value lines of a kustomize env file (comments and blanks skipped)."""
    out = {}
    for line in read(path).splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        if "=" not in line:
            fail(f"{path}: '{line}' is NAME=value")
        name, value = line.split("=", 1)
        out[name] = value
    return out


def check_compose_secrets(doc, environment_of):
    """Secrets reach compose services only from deploy/.env: `${NAME}`,
    `${NAME:?...}` or an empty default, never a value or a default value;
    deploy/.env.example names every variable compose.yaml interpolates."""
    text = read("deploy/compose.yaml")
    example = env_file("deploy/.env.example")
    for name in sorted(set(re.findall(r"\$\{([A-Za-z_][A-Za-z0-9_]*)", text))):
        if name not in example:
            fail(f"deploy/.env.example names {name}, which deploy/compose.yaml reads from .env")
    for service, svc in doc["services"].items():
        environment = environment_of(svc)
        for name in sorted(environment.keys() & (SECRET_NAMES | {"POSTGRES_PASSWORD"})):
            value = str(environment[name])
            refs = re.findall(r"\$\{([A-Za-z_][A-Za-z0-9_]*)([^}]*)\}", value)
            # A URL is a secret through its password: one without a password
            # (redis://redis:6379) holds none; one with a password takes it
            # from .env.
            password = re.match(r"^[a-z][a-z0-9+.-]*://[^/@]*:([^/@]*)@", value) if name.endswith("_URL") else None
            if name.endswith("_URL") and not password and "@" not in value:
                continue
            if not refs or (password and not password.group(1).startswith("${")):
                fail(f"compose service {service}: {name} comes from deploy/.env (a ${{...}} reference), not a value")
            for ref, rest in refs:
                default = re.match(r":?-(.*)", rest)
                if default and default.group(1):
                    fail(f"compose service {service}: {name} has no default for ${{{ref}}} (a default password)")
        for name in sorted(environment.keys() & SECRET_FILE_NAMES):
            if not str(environment[name]).startswith("/run/secrets/"):
                fail(f"compose service {service}: {name} points into /run/secrets (a compose secret)")
    ok("compose takes every secret from deploy/.env, without defaults; .env.example names each")


def check_compose_hardening(doc, image_services):
    for name, svc in doc["services"].items():
        if svc.get("read_only") is not True:
            fail(f"compose service {name} is read_only: true")
        if [c.upper() for c in svc.get("cap_drop", [])] != ["ALL"]:
            fail(f"compose service {name} drops every capability (cap_drop: [ALL])")
        if svc.get("cap_add"):
            fail(f"compose service {name} adds no capability")
        if "no-new-privileges:true" not in svc.get("security_opt", []):
            fail(f"compose service {name} sets no-new-privileges:true")
        for port in svc.get("ports", []):
            parts = str(port).split(":")
            if len(parts) < 3 or not parts[0]:
                fail(f"compose service {name} publishes {port} on a named interface (127.0.0.1:HOST:CONTAINER)")
        image = svc.get("image", "")
        if ":" not in image.rsplit("/", 1)[-1] or image.endswith((":latest", ":dev")):
            fail(f"compose service {name} names its image with an explicit tag ({image or 'none'})")
    for name, svc in image_services.items():
        if "build" not in svc:
            fail(f"compose service {name} runs the linecast image and builds it (build:), so it never runs a stale one")
    ok(f"compose: {len(doc['services'])} services read-only, without capabilities or new privileges, "
       "ports on named interfaces, explicit tags; every linecast service builds its image")


def k8s_docs():
    """The resources of the kustomization, with each ConfigMap of its
    configMapGenerator made from its env files and literals."""
    docs = []
    kustomization = yaml.safe_load(read("deploy/k8s/kustomization.yaml"))
    for resource in kustomization["resources"]:
        path = os.path.join("deploy/k8s", resource)
        if not os.path.exists(os.path.join(ROOT, path)):
            fail(f"kustomization lists {resource}, which exists")
        docs.extend(d for d in yaml.safe_load_all(read(path)) if d)
    if any(d["kind"] == "ConfigMap" for d in docs):
        fail("the ConfigMap is generated (configMapGenerator), so an edit rolls the pods; no static ConfigMap")
    for generator in kustomization.get("configMapGenerator", []):
        data = {}
        for path in generator.get("envs", []):
            data.update(env_file(os.path.join("deploy/k8s", path)))
        for literal in generator.get("literals", []):
            name, value = literal.split("=", 1)
            data[name] = value
        docs.append({"kind": "ConfigMap", "metadata": {"name": generator["name"]}, "data": data})
    return docs


def cloudrun():
    return yaml.safe_load(read("deploy/cloudrun/service.yaml"))


def cluster_script_names():
    """LINECAST_* names deploy/local/cluster.sh sets for the instances."""
    return set(cluster_script_values())


def cluster_script_values():
    """LINECAST_* names deploy/local/cluster.sh sets, with their values as
    written (quotes kept)."""
    text = read("deploy/local/cluster.sh")
    return dict(re.findall(r"\b(LINECAST_[A-Z0-9_]+)=(\"[^\"]*\"|[^\s\\]*)", text))


# ----------------------------------------------------------------- checks


CLIENT_ADDRESS_NAMES = ("LINECAST_CLIENT_IP_HEADER", "LINECAST_TRUSTED_PROXY_CIDRS")


def client_address_problem(values):
    """Why a form's settings (NAME -> value) leave the server without the
    client's address, or None. Every form here runs behind a proxy (nginx,
    an ingress, Google's front end); without a header read from trusted
    proxies the per-address limits (failed key checks, the public routes,
    portal sign-in, the webhook's refusals) see one address, the proxy's,
    for every client: one client's bad keys lock everyone out."""
    missing = [n for n in CLIENT_ADDRESS_NAMES if not str(values.get(n, "")).strip()]
    if missing:
        return (f"sets no {' and no '.join(missing)}: every client behind its proxy shares the proxy's address "
                "in the per-address limits (failed key checks, public routes, portal sign-in); set the header "
                "the proxy appends the client to, the proxy's CIDRs and LINECAST_TRUSTED_PROXIES "
                "(docs/configuration.md; docs/operations.md)")
    hops = str(values.get("LINECAST_TRUSTED_PROXIES", "1")).strip()
    if not hops.isdigit() or int(hops) < 1:
        return f"sets LINECAST_TRUSTED_PROXIES to {hops!r}: a whole number of proxies, at least 1"
    return None


def check_client_address(where, values):
    problem = client_address_problem(values)
    if problem:
        fail(f"{where} {problem}")
    ok(f"{where}: the client address is read from {values['LINECAST_CLIENT_IP_HEADER']} set by "
       f"{values['LINECAST_TRUSTED_PROXY_CIDRS']} ({values.get('LINECAST_TRUSTED_PROXIES', '1')} hop(s))")


def check_client_address_check():
    """The check itself refuses the forms it exists for."""
    good = {"LINECAST_CLIENT_IP_HEADER": "X-Forwarded-For", "LINECAST_TRUSTED_PROXY_CIDRS": "10.0.0.0/8"}
    if client_address_problem(good) is not None or client_address_problem(dict(good, LINECAST_TRUSTED_PROXIES="2")):
        fail("client_address_problem accepts a form with the header and the CIDRs")
    bad = [{}, {"LINECAST_CLIENT_IP_HEADER": "X-Forwarded-For"}, {"LINECAST_TRUSTED_PROXY_CIDRS": "10.0.0.0/8"},
           dict(good, LINECAST_CLIENT_IP_HEADER=""), dict(good, LINECAST_TRUSTED_PROXIES="0"),
           dict(good, LINECAST_TRUSTED_PROXIES="two")]
    for values in bad:
        if client_address_problem(values) is None:
            fail(f"client_address_problem refuses {values}")
    ok(f"the client-address check refuses {len(bad)} forms without a usable client address")



def check_names(where, names, known, documented):
    for name in sorted(names):
        if name.startswith("LINECAST_"):
            if name not in known:
                fail(f"{where} sets {name}, which crates/linecast-settings/src/ does not read")
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


def run_healthcheck(binary, env, work):
    result = subprocess.run([binary, "healthcheck"], env=env, cwd=work, capture_output=True, text=True, timeout=30)
    return result.returncode, result.stderr.strip()


def check_healthcheck(binary, env, port, work):
    by_port = {k: v for k, v in env.items() if k != "LINECAST_BIND"}
    by_port["PORT"] = str(port)
    for how, variables in (("LINECAST_BIND", env), ("PORT", by_port)):
        code, err = run_healthcheck(binary, variables, work)
        if code != 0:
            fail(f"`linecast-api healthcheck` exits 0 against the running server (bound by {how}; got {code}: {err})")
    closed = dict(env, LINECAST_BIND=f"127.0.0.1:{free_port()}")
    code, _ = run_healthcheck(binary, closed, work)
    if code != 1:
        fail(f"`linecast-api healthcheck` exits 1 when nothing answers (got {code})")
    ok("`linecast-api healthcheck` exits 0 against the server (LINECAST_BIND or PORT) and 1 against a closed port")


def check_probes(binary, paths, healthcheck=True):
    if not os.path.exists(binary):
        fail(f"{binary} exists (build it: cargo build -p linecast-api)")
    work = tempfile.mkdtemp(prefix="linecast-check-")
    # A copy: the server writes kept releases under the store's archive/.
    store = os.path.join(work, "store")
    shutil.copytree(os.path.join(ROOT, "fixtures", "store"), store)
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("LINECAST_")}
    env.update(
        LINECAST_BIND=f"127.0.0.1:{port}",
        LINECAST_DATABASE_URL=f"sqlite://{work}/accounts.db?mode=rwc",
        LINECAST_STORE_URL=f"file://{store}",
        LINECAST_VAR_DIR=work,
        LINECAST_DEMO="false",
        # A fresh database: migrated at start, as production mode checks it.
        LINECAST_MIGRATE="true",
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
        # The image's HEALTHCHECK: the binary's own subcommand, on the port
        # the settings bind (here LINECAST_BIND; in the image PORT).
        if healthcheck:
            check_healthcheck(binary, env, port, work)
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


def environment_of(svc):
    environment = svc.get("environment") or {}
    if isinstance(environment, list):
        environment = dict(item.split("=", 1) for item in environment)
    return environment


def check_dockerfile(known, documented):
    """The runtime stage's variables and its HEALTHCHECK; returns (env, bind)."""
    env, health, runs = dockerfile()
    check_names("Dockerfile", set(env), known, documented)
    for run in runs:
        if re.search(r"\b(apt-get|apt|curl|wget)\b", run):
            fail(f"the runtime stage installs or runs no package manager or curl: {run}")
    form = re.search(r"HEALTHCHECK\b.*\bCMD\s+(\[.*\])\s*$", health)
    if not form:
        fail("the HEALTHCHECK is in exec form (CMD [...])")
    command = yaml.safe_load(form.group(1))
    if [os.path.basename(command[0])] + command[1:] != ["linecast-api", "healthcheck"]:
        fail(f"the HEALTHCHECK runs the binary's own `linecast-api healthcheck` (runs {command})")
    ok("Dockerfile HEALTHCHECK runs `linecast-api healthcheck`; the runtime stage runs no package manager or curl")
    return env, image_bind(env)


def check_compose(known, documented, image_port):
    doc = compose()
    services = linecast_services(doc)
    if len([n for n in services if n.startswith("linecast-")]) != 3:
        fail("compose runs three linecast instances")
    for name, svc in services.items():
        environment = environment_of(svc)
        check_names(f"compose service {name}", set(environment), known, documented)
        check_redis_signing(f"compose service {name}", set(environment))
        if name.startswith("linecast-"):
            bind = environment.get("LINECAST_BIND")
            port = port_of(bind) if bind else image_port
            if port != image_port:
                fail(f"compose service {name} listens on the port the image's health check polls")
            check_memory(f"compose service {name}", mib(str(svc.get("mem_reservation", "0")).replace("m", "Mi")),
                         environment.get("LINECAST_CACHE_BYTES", "167772160"))
            if (svc.get("depends_on") or {}).get("migrate", {}).get("condition") != "service_completed_successfully":
                fail(f"compose service {name} starts after the `migrate` service completed")
            check_client_address(f"compose service {name}", environment)
    migrate = doc["services"].get("migrate")
    if not migrate or migrate.get("entrypoint") != ["linecast-admin"] or migrate.get("command") != ["migrate"]:
        fail("compose has a `migrate` service running `linecast-admin migrate`")
    for name, svc in services.items():
        if name.startswith("linecast-"):
            check_not_migrating(f"compose service {name}", environment_of(svc))
    ok("compose: `migrate` runs `linecast-admin migrate`; the instances wait for it and do not migrate")
    check_compose_secrets(doc, environment_of)
    check_compose_hardening(doc, services)
    upstream = read("deploy/nginx/linecast.conf")
    for name in (n for n in services if n.startswith("linecast-")):
        if f"server {name}:{image_port}" not in upstream:
            fail(f"the nginx upstream names {name}:{image_port}")
    ok("the nginx upstream names the three compose instances on the image's port")
    listen = re.search(r"^\s*listen\s+(\d+)\s*;", upstream, re.M)
    published = [str(p).rsplit(":", 1)[-1] for p in doc["services"]["nginx"].get("ports", [])]
    if not listen or listen.group(1) not in published:
        fail(f"compose publishes the port nginx listens on ({listen.group(1) if listen else 'none'})")
    ok(f"compose publishes nginx's port {listen.group(1)}")
    return upstream


def check_not_migrating(where, values):
    """A server beside a migration job or service never migrates itself."""
    if str(values.get("LINECAST_MIGRATE", "false")).strip().lower() in ("1", "true", "yes"):
        fail(f"{where}: LINECAST_MIGRATE is not true (`linecast-admin migrate` owns the schema)")


def runs_migrate(command):
    """Whether a container command is `linecast-admin migrate`."""
    return len(command) == 2 and os.path.basename(command[0]) == "linecast-admin" and command[1] == "migrate"


def secret_mounts(pod_spec, container):
    """Mount paths of the container's volumes that come from a Secret."""
    secret_volumes = {v["name"] for v in pod_spec.get("volumes", []) if "secret" in v}
    return [m["mountPath"] for m in container.get("volumeMounts", []) if m["name"] in secret_volumes]


def check_secret_refs(where, container, values, pod_spec):
    """Secrets by secretKeyRef; a credentials file inside a mounted Secret."""
    mounts = secret_mounts(pod_spec, container)
    for item in container.get("env", []):
        if item["name"] in SECRET_NAMES and "secretKeyRef" not in item.get("valueFrom", {}):
            fail(f"{where}: {item['name']} is passed by reference (valueFrom.secretKeyRef)")
    for name in sorted(values.keys() & SECRET_FILE_NAMES):
        path = values[name]
        if not any(path == m or path.startswith(m.rstrip("/") + "/") for m in mounts):
            fail(f"{where}: {name} ({path}) is a file of a mounted Secret volume")


def probe_port(container, spec, ports):
    http = spec["httpGet"]
    return ports.get(http["port"], http["port"])


def check_k8s(known, documented, image_bind_address, probe_paths):
    docs = k8s_docs()
    by_kind = {}
    for d in docs:
        by_kind.setdefault(d["kind"], []).append(d)
    for kind in ("Deployment", "Service", "PodDisruptionBudget", "ConfigMap", "ServiceAccount", "NetworkPolicy",
                 "Ingress", "Job"):
        if kind not in by_kind:
            fail(f"deploy/k8s has a {kind}")
    kinds = {k: v[0] for k, v in by_kind.items()}
    deployment, configmap = kinds["Deployment"], kinds["ConfigMap"]
    pod = deployment["spec"]["template"]["spec"]
    labels = deployment["spec"]["template"]["metadata"]["labels"]

    def selects(selector, pod_labels):
        selector = selector.get("matchLabels", selector)
        return all(pod_labels.get(k) == v for k, v in selector.items())

    for kind in ("Service", "PodDisruptionBudget"):
        if not selects(kinds[kind]["spec"]["selector"], labels):
            fail(f"the {kind} selects the Deployment's pods")
    ok("the Service and the PodDisruptionBudget select the Deployment's pods")
    if not any(selects(p["spec"]["podSelector"], labels) for p in by_kind["NetworkPolicy"]):
        fail("a NetworkPolicy selects the Deployment's pods")
    ok("a NetworkPolicy selects the Deployment's pods")
    pdb = kinds["PodDisruptionBudget"]["spec"]
    if pdb.get("maxUnavailable") != 1 or "minAvailable" in pdb:
        fail("the PodDisruptionBudget is maxUnavailable: 1 (minAvailable blocks drains at that replica count)")
    ok("the PodDisruptionBudget lets one pod at a time go")
    account = kinds["ServiceAccount"]
    if account.get("automountServiceAccountToken") is not False:
        fail("the ServiceAccount sets automountServiceAccountToken: false")
    for what, spec in [("Deployment", pod)] + [(f"Job {j['metadata']['name']}", j["spec"]["template"]["spec"])
                                                for j in by_kind["Job"]]:
        if spec.get("serviceAccountName") != account["metadata"]["name"]:
            fail(f"the {what}'s pods run as the ServiceAccount {account['metadata']['name']}")
        if spec.get("automountServiceAccountToken") is not False:
            fail(f"the {what}'s pods mount no service-account token")
    ok("the pods run as a ServiceAccount without a token")
    for name in (configmap.get("data") or {}).keys() & SECRET_NAMES:
        fail(f"{name} is not in the ConfigMap (a secret goes by reference)")
    ok(f"the ConfigMap {configmap['metadata']['name']} is generated (configMapGenerator, {len(configmap['data'])} settings)")

    k8s_env = dict(configmap.get("data") or {})
    for container in pod["containers"]:
        for source in container.get("envFrom", []):
            ref = source.get("configMapRef", {}).get("name")
            if ref and ref != configmap["metadata"]["name"]:
                fail(f"envFrom names the ConfigMap {ref} of deploy/k8s")
        for item in container.get("env", []):
            k8s_env[item["name"]] = item.get("value", "")
        check_names("deploy/k8s (ConfigMap and env)", set(k8s_env), known, documented)
        check_secret_refs("deploy/k8s Deployment", container, k8s_env, pod)
        check_redis_signing("deploy/k8s", set(k8s_env))
        check_client_address("deploy/k8s (ConfigMap and env)", k8s_env)
        ok("secrets reach the pods by secretKeyRef only")
        ports = {p["name"]: p["containerPort"] for p in container["ports"]}
        bind_port = port_of(configmap["data"].get("LINECAST_BIND", image_bind_address))
        for probe in ("readinessProbe", "livenessProbe", "startupProbe"):
            spec = container.get(probe)
            if not spec:
                if probe == "startupProbe":
                    continue
                fail(f"the container has a {probe}")
            port = probe_port(container, spec, ports)
            if port != bind_port:
                fail(f"the {probe} polls port {port}, the one LINECAST_BIND listens on ({bind_port})")
            probe_paths.add(spec["httpGet"]["path"])
        if container["readinessProbe"]["httpGet"]["path"] != "/api/v1/readiness":
            fail("the readiness probe is /api/v1/readiness")
        if container["livenessProbe"]["httpGet"]["path"] != "/api/v1/liveness":
            fail("the liveness probe is /api/v1/liveness")
        ok("readiness and liveness probes poll /api/v1/readiness and /api/v1/liveness on the bound port")
        if container["readinessProbe"].get("failureThreshold", 3) < 2:
            fail("the readiness probe tolerates a blip (failureThreshold above 1; docs/operations.md, Kubernetes)")
        ok("the readiness probe tolerates a blip "
           f"({container['readinessProbe'].get('failureThreshold', 3)} failures "
           f"{container['readinessProbe'].get('periodSeconds', 10)} s apart)")
        check_memory("deploy/k8s Deployment", mib(container["resources"]["requests"]["memory"]),
                     configmap["data"].get("LINECAST_CACHE_BYTES", "167772160"))
        grace = float(configmap["data"].get("LINECAST_DRAIN_GRACE_SECS", "5"))
        period = pod.get("terminationGracePeriodSeconds", 30)
        if period < grace + 15:
            fail(f"terminationGracePeriodSeconds ({period}) leaves the drain grace ({grace} s) and 15 s of drain")
        ok(f"terminationGracePeriodSeconds {period} covers the drain grace ({grace:g} s) and the drain")
    images = {c["image"].split(":")[0].split("@")[0] for c in pod["containers"]}
    check_not_migrating("deploy/k8s ConfigMap", configmap["data"])
    for container in pod["containers"]:
        check_not_migrating("deploy/k8s Deployment",
                            {i["name"]: i.get("value", "") for i in container.get("env", [])})
    migrating = [j for j in by_kind["Job"]
                 if any(runs_migrate(c.get("command", []) + c.get("args", []))
                        for c in j["spec"]["template"]["spec"]["containers"])]
    if not migrating:
        fail("deploy/k8s has a Job running `linecast-admin migrate`")
    ok(f"deploy/k8s: the Job {migrating[0]['metadata']['name']} runs `linecast-admin migrate`; the pods do not migrate")
    for job in by_kind["Job"]:
        spec = job["spec"]["template"]
        if selects(kinds["Service"]["spec"]["selector"], spec["metadata"].get("labels", {})):
            fail(f"the Service does not select the Job {job['metadata']['name']}'s pods")
        for container in spec["spec"]["containers"]:
            if container["image"].split(":")[0].split("@")[0] not in images:
                fail(f"the Job {job['metadata']['name']} runs the linecast image")
            if os.path.basename(container.get("command", [""])[0]) != "linecast-admin":
                fail(f"the Job {job['metadata']['name']} runs linecast-admin")
            values = {i["name"]: i.get("value", "") for i in container.get("env", [])}
            check_names(f"deploy/k8s Job {job['metadata']['name']}", set(values), known, documented)
            check_secret_refs(f"deploy/k8s Job {job['metadata']['name']}", container, values, spec["spec"])
        ok(f"the Job {job['metadata']['name']} runs linecast-admin from the image, outside the Service")


def check_cloudrun_job(known, documented, service_container):
    """The Cloud Run job that migrates before a rollout."""
    job = yaml.safe_load(read("deploy/cloudrun/migrate-job.yaml"))
    if job.get("kind") != "Job" or not job.get("apiVersion", "").startswith("run.googleapis.com/"):
        fail("deploy/cloudrun/migrate-job.yaml is a Cloud Run job")
    task = job["spec"]["template"]["spec"]["template"]["spec"]
    container = task["containers"][0]
    if container["image"] != service_container["image"]:
        fail("deploy/cloudrun/migrate-job.yaml runs the service's image")
    if not runs_migrate(container.get("command", []) + container.get("args", [])):
        fail("deploy/cloudrun/migrate-job.yaml runs `linecast-admin migrate`")
    values = {i["name"]: i.get("value", "") for i in container.get("env", [])}
    if "LINECAST_DATABASE_URL" not in values:
        fail("deploy/cloudrun/migrate-job.yaml names the database (LINECAST_DATABASE_URL)")
    check_names("deploy/cloudrun/migrate-job.yaml", set(values), known, documented)
    check_secret_refs("deploy/cloudrun/migrate-job.yaml", container, values, {"volumes": task.get("volumes", [])})
    ok("deploy/cloudrun: the job linecast-migrate runs `linecast-admin migrate` from the service's image")


def check_cloudrun(known, documented, image_bind_address, probe_paths):
    service = cloudrun()
    template = service["spec"]["template"]
    annotations = template["metadata"].get("annotations", {})
    if annotations.get("run.googleapis.com/cpu-throttling") != "false":
        fail("deploy/cloudrun: CPU is always allocated (run.googleapis.com/cpu-throttling: \"false\"; the usage "
             "flusher runs between requests)")
    spec = template["spec"]
    container = spec["containers"][0]
    values = {i["name"]: i.get("value", "") for i in container.get("env", [])}
    check_names("deploy/cloudrun", set(values), known, documented)
    if "LINECAST_BIND" in values or "PORT" in values:
        fail("deploy/cloudrun leaves the address to PORT, which Cloud Run sets (no LINECAST_BIND, no PORT)")
    check_secret_refs("deploy/cloudrun", container, values, {"volumes": spec.get("volumes", [])})
    check_redis_signing("deploy/cloudrun", set(values))
    check_client_address("deploy/cloudrun", values)
    check_not_migrating("deploy/cloudrun", values)
    check_cloudrun_job(known, documented, container)
    ok("deploy/cloudrun: secrets by secretKeyRef (Secret Manager), CPU always allocated")
    port = container["ports"][0]["containerPort"]
    if port != port_of(image_bind_address):
        fail(f"deploy/cloudrun's containerPort {port} is the image's port")
    for probe in ("startupProbe", "livenessProbe"):
        if probe not in container:
            fail(f"deploy/cloudrun has a {probe}")
        if container[probe]["httpGet"].get("port", port) != port:
            fail(f"deploy/cloudrun's {probe} polls the container port")
        probe_paths.add(container[probe]["httpGet"]["path"])
    if container["livenessProbe"]["httpGet"]["path"] != "/api/v1/liveness":
        fail("deploy/cloudrun's liveness probe is /api/v1/liveness")
    grace = float(values.get("LINECAST_DRAIN_GRACE_SECS", "5"))
    if grace != 0:
        fail(f"deploy/cloudrun: LINECAST_DRAIN_GRACE_SECS is 0 (Cloud Run stops routing before SIGTERM; "
             f"its {CLOUD_RUN_KILL_SECS} s before SIGKILL go to the drain; got {grace:g})")
    if "LINECAST_SHUTDOWN_TIMEOUT_SECS" in known:
        in_flight = float(values.get("LINECAST_SHUTDOWN_TIMEOUT_SECS", IN_FLIGHT_SECS))
        if grace + in_flight + WIND_DOWN_SECS > CLOUD_RUN_KILL_SECS:
            fail(f"deploy/cloudrun: the drain grace ({grace:g} s), the in-flight allowance "
                 f"(LINECAST_SHUTDOWN_TIMEOUT_SECS, {in_flight:g} s) and the {WIND_DOWN_SECS} s wind-down fit "
                 f"Cloud Run's {CLOUD_RUN_KILL_SECS} s before SIGKILL")
        ok(f"deploy/cloudrun: probes on the container port; the stop ({grace:g} + {in_flight:g} + {WIND_DOWN_SECS} s) "
           f"fits the {CLOUD_RUN_KILL_SECS} s kill window")
    else:
        ok(f"deploy/cloudrun: probes on the container port; drain grace 0 (the in-flight allowance is fixed at "
           f"{IN_FLIGHT_SECS} s until LINECAST_SHUTDOWN_TIMEOUT_SECS exists: a response still running at "
           f"{CLOUD_RUN_KILL_SECS} s is cut by Cloud Run's SIGKILL)")


def main():
    target = os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target"))
    binary = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(target, "debug/linecast-api"))
    known, documented = settings_names(), documented_names()
    if len(known) < 20:
        fail(f"the settings module names its variables as string literals (found {len(known)})")
    probe_paths = set()
    check_client_address_check()

    env, bind = check_dockerfile(known, documented)
    image_port = port_of(bind)
    upstream = check_compose(known, documented, image_port)
    check_k8s(known, documented, bind, probe_paths)
    check_cloudrun(known, documented, bind, probe_paths)

    # The local cluster's own variables
    names = cluster_script_names()
    check_names("deploy/local/cluster.sh", names, known, documented)
    check_redis_signing("deploy/local/cluster.sh", names)
    check_client_address("deploy/local/cluster.sh", cluster_script_values())

    check_profiles(read("Dockerfile"))
    check_probes(binary, probe_paths)
    check_log_format(upstream)
    check_nginx(upstream)
    print("deploy check: all passed")


if __name__ == "__main__":
    main()
