//! A tiny HTTP/1.1 responder on tokio that plays Kalshi's market-data API:
//! it records each request target and answers from a closure.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

/// What the stub answers to one request.
pub struct Reply {
    pub status: u16,
    pub body: String,
    pub delay: Duration,
}

impl Reply {
    pub fn json(body: impl Into<String>) -> Self {
        Self {
            status: 200,
            body: body.into(),
            delay: Duration::ZERO,
        }
    }
}

pub struct Stub {
    pub base_url: String,
    targets: Arc<Mutex<Vec<String>>>,
}

impl Stub {
    /// Starts a stub on an ephemeral port; `answer` gets the request target
    /// (path and query).
    pub async fn start(answer: impl Fn(&str) -> Reply + Send + Sync + 'static) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base_url = format!("http://{}/trade-api/v2", listener.local_addr().unwrap());
        let targets = Arc::new(Mutex::new(Vec::new()));
        let answer = Arc::new(answer);
        let seen = Arc::clone(&targets);
        tokio::spawn(async move {
            loop {
                let Ok((mut socket, _)) = listener.accept().await else {
                    return;
                };
                let answer = Arc::clone(&answer);
                let seen = Arc::clone(&seen);
                tokio::spawn(async move {
                    let mut head = Vec::new();
                    let mut buf = [0u8; 1024];
                    while !head.windows(4).any(|w| w == b"\r\n\r\n") {
                        match socket.read(&mut buf).await {
                            Ok(0) | Err(_) => return,
                            Ok(n) => head.extend_from_slice(&buf[..n]),
                        }
                    }
                    let head = String::from_utf8_lossy(&head);
                    let target = head.split_whitespace().nth(1).unwrap_or_default().to_owned();
                    seen.lock().unwrap().push(target.clone());
                    let reply = answer(&target);
                    tokio::time::sleep(reply.delay).await;
                    let response = format!(
                        "HTTP/1.1 {} Stub\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{}",
                        reply.status,
                        reply.body.len(),
                        reply.body
                    );
                    let _ = socket.write_all(response.as_bytes()).await;
                    let _ = socket.shutdown().await;
                });
            }
        });
        Self { base_url, targets }
    }

    /// The request targets received so far, in arrival order.
    pub fn targets(&self) -> Vec<String> {
        self.targets.lock().unwrap().clone()
    }

    pub fn requests(&self) -> usize {
        self.targets.lock().unwrap().len()
    }
}
