# syntax=docker/dockerfile:1
#
# The linecast image: linecast-api (the entrypoint) and linecast-admin, on a
# slim Debian runtime, as a non-root user. Build from the repository root:
#
#   docker build -t linecast:dev .
#   docker build --build-arg PROFILE=dev -t linecast:debug .   # unoptimised
#
# Stages: `chef` (toolchain and cargo-chef), `planner` (the dependency
# recipe: manifests and lock file only), `builder` (dependencies compiled
# in their own layer, kept while only the project's sources change; then
# the workspace), `runtime`. docs/operations.md, "Deploy", walks through it.

ARG RUST_VERSION=1.95
ARG DEBIAN_RELEASE=bookworm

FROM rust:${RUST_VERSION}-slim-${DEBIAN_RELEASE} AS chef
RUN cargo install cargo-chef --locked --version 0.1.78
WORKDIR /src

FROM chef AS planner
COPY . .
RUN cargo chef prepare --recipe-path recipe.json

FROM chef AS builder
ARG PROFILE=dist
COPY --from=planner /src/recipe.json recipe.json
# Dependencies only (of every workspace member, tests and benches left
# out): this layer is rebuilt when a Cargo.toml or Cargo.lock changes, not
# when the project's own sources do.
RUN cargo chef cook --profile "${PROFILE}" --recipe-path recipe.json
COPY . .
RUN cargo build --profile "${PROFILE}" -p linecast-api -p linecast-admin \
 && dir=$([ "${PROFILE}" = dev ] && echo debug || echo "${PROFILE}") \
 && mkdir -p /out \
 && cp "target/${dir}/linecast-api" "target/${dir}/linecast-admin" /out/

FROM debian:${DEBIAN_RELEASE}-slim AS runtime
# ca-certificates for https object stores; curl for the health check.
RUN apt-get update \
 && apt-get install -y --no-install-recommends ca-certificates curl \
 && rm -rf /var/lib/apt/lists/* \
 && groupadd --system --gid 10001 linecast \
 && useradd --system --uid 10001 --gid linecast --home-dir /var/lib/linecast --shell /usr/sbin/nologin linecast \
 && install -d -o linecast -g linecast -m 0750 /var/lib/linecast
COPY --from=builder /out/linecast-api /out/linecast-admin /usr/local/bin/
USER 10001:10001
WORKDIR /var/lib/linecast
# Listen on every interface of the container; the SQLite file, the demo
# key and a default file store live under the var dir (a volume, or unused
# when a database and store URL are configured). Logs as JSON lines.
ENV LINECAST_BIND=0.0.0.0:8080 \
    LINECAST_VAR_DIR=/var/lib/linecast \
    LINECAST_LOG_FORMAT=json
EXPOSE 8080
# SIGTERM: readiness fails for LINECAST_DRAIN_GRACE_SECS, then the server
# drains (up to 10 s) and writes usage; give the container at least
# grace + 15 s to stop (docker stop -t, compose stop_grace_period).
STOPSIGNAL SIGTERM
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD curl -fsS -o /dev/null http://127.0.0.1:8080/api/v1/liveness || exit 1
ENTRYPOINT ["/usr/local/bin/linecast-api"]
