//! linecast-api: the server's program (`linecast_api::startup::main`).
//!
//! The binary only calls into the library, so the server is compiled once,
//! in the library's parallel codegen units, and not instantiated again here.

fn main() -> anyhow::Result<()> {
    linecast_api::startup::main()
}
