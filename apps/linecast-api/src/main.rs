//! linecast-api: the server's program (`linecast_api::startup::main`).
//!
//! The binary only calls into the library, so the server is compiled once,
//! in the library's parallel codegen units, and not instantiated again here.
//!
//! `linecast-api healthcheck` is the container's health check (the image
//! ships no curl): it asks the running server's `/api/v1/liveness` on the
//! address the settings bind (`LINECAST_BIND`, else `PORT`, else
//! `127.0.0.1:8080`; an unspecified address is asked on loopback) and exits
//! 0 on a 200, 1 otherwise, within about 2 s.

use std::io::{Read, Write};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr, TcpStream};
use std::process::ExitCode;
use std::time::Duration;

const HEALTHCHECK_TIMEOUT: Duration = Duration::from_secs(2);
const LIVENESS_PATH: &str = "/api/v1/liveness";

fn main() -> anyhow::Result<ExitCode> {
    if std::env::args().nth(1).as_deref() == Some("healthcheck") {
        return Ok(healthcheck());
    }
    linecast_api::startup::main()?;
    Ok(ExitCode::SUCCESS)
}

fn healthcheck() -> ExitCode {
    let bind = match linecast_api::settings::Settings::load_bind() {
        Ok(bind) => bind,
        Err(err) => {
            eprintln!("healthcheck: {err}");
            return ExitCode::FAILURE;
        }
    };
    match liveness_status(bind) {
        Ok(200) => ExitCode::SUCCESS,
        Ok(status) => {
            eprintln!("healthcheck: {LIVENESS_PATH} on {bind} answered {status}");
            ExitCode::FAILURE
        }
        Err(err) => {
            eprintln!("healthcheck: {LIVENESS_PATH} on {bind}: {err}");
            ExitCode::FAILURE
        }
    }
}

/// The status code of one `GET /api/v1/liveness` (HTTP/1.1, a fresh
/// connection, every step bounded by [`HEALTHCHECK_TIMEOUT`]).
fn liveness_status(bind: SocketAddr) -> std::io::Result<u16> {
    let ip = match bind.ip() {
        IpAddr::V4(ip) if ip.is_unspecified() => IpAddr::V4(Ipv4Addr::LOCALHOST),
        IpAddr::V6(ip) if ip.is_unspecified() => IpAddr::V6(Ipv6Addr::LOCALHOST),
        ip => ip,
    };
    let target = SocketAddr::new(ip, bind.port());
    let mut stream = TcpStream::connect_timeout(&target, HEALTHCHECK_TIMEOUT)?;
    stream.set_read_timeout(Some(HEALTHCHECK_TIMEOUT))?;
    stream.set_write_timeout(Some(HEALTHCHECK_TIMEOUT))?;
    // One write: a request split over segments is still valid HTTP, but
    // one segment is what every server reads in one go.
    let request = format!(
        "GET {LIVENESS_PATH} HTTP/1.1\r\nHost: {target}\r\nUser-Agent: linecast-healthcheck\r\nConnection: close\r\n\r\n"
    );
    stream.write_all(request.as_bytes())?;
    // The status line is in the first bytes; the body is not needed.
    let mut head = [0_u8; 64];
    let mut read = 0;
    while read < head.len() {
        match stream.read(&mut head[read..])? {
            0 => break,
            n => read += n,
        }
        if head[..read].contains(&b'\n') {
            break;
        }
    }
    status_code(&head[..read]).ok_or_else(|| std::io::Error::other("no HTTP status line in the answer"))
}

/// The code of an `HTTP/1.x NNN ...` status line.
fn status_code(head: &[u8]) -> Option<u16> {
    let line = std::str::from_utf8(head).ok()?.lines().next()?;
    let mut parts = line.split(' ');
    parts.next().filter(|v| v.starts_with("HTTP/1."))?;
    parts.next()?.parse().ok()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn the_status_code_is_read_from_the_status_line_only() {
        assert_eq!(status_code(b"HTTP/1.1 200 OK\r\ncontent-length: 2"), Some(200));
        assert_eq!(status_code(b"HTTP/1.0 503 Service Unavailable\r\n"), Some(503));
        assert_eq!(status_code(b"SSH-2.0-OpenSSH\r\n"), None);
        assert_eq!(status_code(b""), None);
    }

    #[test]
    fn a_live_server_is_200_and_a_closed_port_is_an_error() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let server = std::thread::spawn(move || {
            let (mut conn, _) = listener.accept().unwrap();
            let mut request = Vec::new();
            let mut chunk = [0_u8; 512];
            while !request.ends_with(b"\r\n\r\n") {
                let n = conn.read(&mut chunk).unwrap();
                assert!(n > 0, "the request ends with an empty line");
                request.extend_from_slice(&chunk[..n]);
            }
            assert!(request.starts_with(b"GET /api/v1/liveness HTTP/1.1\r\n"));
            conn.write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n").unwrap();
        });
        let unspecified = SocketAddr::from(([0, 0, 0, 0], addr.port()));
        assert_eq!(liveness_status(unspecified).unwrap(), 200);
        server.join().unwrap();
        // The listener is closed with its thread.
        assert!(liveness_status(addr).is_err());
    }
}
