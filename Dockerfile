# syntax=docker/dockerfile:1
#
# The linecast image: linecast-api (the entrypoint) and linecast-admin, on a
# distroless runtime (glibc, libgcc, CA certificates; no shell, no package
# manager, no curl), as a non-root user. Build from the repository root:
#
#   docker build -t linecast:dev .
#   docker build --build-arg PROFILE=dev -t linecast:debug .   # unoptimised
#   docker build --build-arg VERSION=1.4.0 --build-arg REVISION=$(git rev-parse HEAD) -t linecast:1.4.0 .
#
# Stages: `chef` (toolchain and cargo-chef), `planner` (the dependency
# recipe: manifests and lock file only), `builder` (the dependencies of the
# two binaries compiled in their own layer, kept while only the project's
# sources change; then the binaries), `runtime`. docs/operations.md,
# "Deploy", walks through it.

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
# Dependencies only, of the two packages the build below builds (the same
# selection, so the same features are unified and the layer is reused):
# rebuilt when a Cargo.toml or Cargo.lock changes, not when the project's
# own sources do. --locked: the lock file is used as committed, never updated.
RUN cargo chef cook --locked --profile "${PROFILE}" --recipe-path recipe.json -p linecast-api -p linecast-admin
COPY . .
RUN cargo build --locked --profile "${PROFILE}" -p linecast-api -p linecast-admin \
 && dir=$([ "${PROFILE}" = dev ] && echo debug || echo "${PROFILE}") \
 && mkdir -p /out/var \
 && cp "target/${dir}/linecast-api" "target/${dir}/linecast-admin" /out/

# Distroless of the builder's Debian release (bookworm is Debian 12: the same
# glibc); change the two together.
FROM gcr.io/distroless/cc-debian12:nonroot AS runtime
ARG VERSION=0.1.0
ARG REVISION=unknown
LABEL org.opencontainers.image.title="linecast" \
      org.opencontainers.image.description="Sports model data JSON API (linecast-api) and its operator CLI (linecast-admin)" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}" \
      org.opencontainers.image.licenses="Apache-2.0" \
      org.opencontainers.image.vendor="linecast" \
      org.opencontainers.image.documentation="docs/operations.md"
COPY --from=builder /out/linecast-api /out/linecast-admin /usr/local/bin/
# The var dir, owned by the runtime user (nothing durable lives there when a
# database and store URL are configured).
COPY --from=builder --chown=10001:10001 --chmod=0750 /out/var /var/lib/linecast
USER 10001:10001
WORKDIR /var/lib/linecast
# Listen on every interface of the container, on PORT (8080, or the one the
# platform sets: Cloud Run does) unless LINECAST_BIND is given. Without a
# database and store URL the server refuses to start here unless
# LINECAST_DEMO=true: demo mode only on request off loopback
# (docs/decisions.md, "Container image: demo only on request"). Logs as
# JSON lines.
ENV PORT=8080 \
    LINECAST_VAR_DIR=/var/lib/linecast \
    LINECAST_LOG_FORMAT=json
EXPOSE 8080 9100
# SIGTERM: readiness fails for LINECAST_DRAIN_GRACE_SECS, then the server
# drains (up to 10 s) and writes usage; give the container at least
# grace + 15 s to stop (docker stop -t, compose stop_grace_period).
STOPSIGNAL SIGTERM
# The binary's own probe: GET /api/v1/liveness on the bound port, 2 s bound.
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD ["/usr/local/bin/linecast-api", "healthcheck"]
ENTRYPOINT ["/usr/local/bin/linecast-api"]
