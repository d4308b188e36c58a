# linecast tasks. `just` lists them; each is a thin wrapper over cargo.

default:
    @just --list

# Run the service with embedded defaults (SQLite under var/, demo data on first run).
run:
    cargo run --release -p linecast-api

# Run every test that needs no external service.
test:
    cargo test --workspace

# Run the PostgreSQL suite (needs PostgreSQL on 127.0.0.1:5432).
test-pg url="postgres://postgres@127.0.0.1:5432/test":
    LINECAST_TEST_DATABASE_URL={{url}} cargo test -p linecast-db

# fmt check and clippy with warnings denied.
lint:
    cargo fmt --all -- --check
    cargo clippy --workspace --all-targets -- -D warnings

# criterion benchmarks of the pure crates.
bench:
    cargo bench -p linecast-grading -p linecast-strategies

# Regenerate the committed test fixture store.
fixtures:
    cargo run -p linecast-admin -- fixtures generate --out fixtures/store --profile small --today 2026-11-15 --seed 7

# Validate a store against the data contract.
validate store="file://" + justfile_directory() + "/var/store":
    cargo run -p linecast-admin -- data validate --store {{store}}

# HTTP load: authenticated vs open vs a bare handler, plus a one-key burst.
load duration="30" connections="64":
    bench/load.sh {{duration}} {{connections}}

# Peak memory over a sweep of every sport, model type and season.
sweep:
    bench/sweep.sh

# A local cluster on loopback (nginx, three instances, PostgreSQL, Redis, moto's S3); Ctrl-C stops it. With a command: run it against the cluster, then stop.
cluster *cmd:
    cargo build -p linecast-api -p linecast-admin
    deploy/local/cluster.sh {{cmd}}

# The cluster test: smoke and export, exact count under load, rolling restart, kill -9, event stream.
cluster-test:
    cargo build -p linecast-api -p linecast-admin
    LINECAST_NOW=2026-11-21T17:00:00Z deploy/local/cluster.sh python3 deploy/local/cluster_test.py

# Check the Dockerfile, compose and Kubernetes files against the code (variables, probe paths, nginx -t).
deploy-check:
    cargo build -p linecast-api
    python3 deploy/check.py

# The full mutation pass over the pure rule crates (.cargo/mutants.toml); TESTING.md has the last result.
mutants:
    PROPTEST_CASES=32 CARGO_PROFILE_DEV_DEBUG=0 CARGO_PROFILE_TEST_DEBUG=0 cargo mutants -j 2 -o target/mutants

# The mutation guard CI runs: mutants on the pure crates' lines changed since .ci/mutants-base.
mutants-diff:
    .ci/mutants-diff
