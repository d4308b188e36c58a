//! Which client a request comes from, for the per-address limits (the
//! public routes' limit and the failed-key-check limit).
//!
//! Without `LINECAST_CLIENT_IP_HEADER` it is the TCP peer. With it (for
//! example `X-Forwarded-For`), each of the `LINECAST_TRUSTED_PROXIES`
//! proxies in front of the server appends the address it received the
//! request from, so the client is the entry that many places from the right
//! of the header (all its lines joined in order): the right-most entry that
//! no trusted hop wrote on its own behalf. Entries may be `ip`, `ip:port` or
//! `[v6]:port` (optionally `[v6]`). When that entry is missing (fewer entries
//! than hops) or unreadable, the client is the TCP peer: never an entry
//! further left, which the client chose itself.
//!
//! Limits key an address by `ClientKey`: an IPv4 address, or an IPv6
//! address's /64 network (one subscriber's prefix), so a client cannot
//! multiply its allowance by rotating the low bits of its IPv6 address.

use std::net::{IpAddr, Ipv6Addr, SocketAddr};

use actix_web::dev::ServiceRequest;
use actix_web::http::header::HeaderMap;

/// How to find the client address of a request.
#[derive(Debug, Clone)]
pub struct ClientAddresses {
    /// Lower-cased header name, when a trusted proxy sets one.
    header: Option<String>,
    /// Proxies that append to the header (at least 1).
    trusted_proxies: usize,
}

/// What a per-address limit keys on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ClientKey {
    V4([u8; 4]),
    /// The first 64 bits of an IPv6 address.
    V6Net(u64),
}

impl From<IpAddr> for ClientKey {
    fn from(addr: IpAddr) -> Self {
        match addr {
            IpAddr::V4(v4) => ClientKey::V4(v4.octets()),
            IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
                Some(v4) => ClientKey::V4(v4.octets()),
                None => ClientKey::V6Net((u128::from(v6) >> 64) as u64),
            },
        }
    }
}

impl ClientAddresses {
    pub fn new(header: Option<String>, trusted_proxies: u32) -> Self {
        Self {
            header: header.map(|h| h.to_ascii_lowercase()),
            trusted_proxies: usize::try_from(trusted_proxies.max(1)).unwrap_or(1),
        }
    }

    /// The client of `req` (see the module docs).
    pub fn of(&self, req: &ServiceRequest) -> Option<IpAddr> {
        let peer = req.peer_addr().map(|a| a.ip());
        self.from_parts(req.headers(), peer)
    }

    /// The client given the request's headers and TCP peer.
    pub fn from_parts(&self, headers: &HeaderMap, peer: Option<IpAddr>) -> Option<IpAddr> {
        let Some(header) = &self.header else {
            return peer;
        };
        let entries: Vec<&str> = headers
            .get_all(header.as_str())
            .map(|v| v.to_str().unwrap_or(""))
            .flat_map(|v| v.split(','))
            .map(str::trim)
            .collect();
        entries
            .len()
            .checked_sub(self.trusted_proxies)
            .and_then(|i| parse_entry(entries[i]))
            .or(peer)
    }
}

/// One header entry: `ip`, `ip:port`, `[v6]` or `[v6]:port`.
pub fn parse_entry(entry: &str) -> Option<IpAddr> {
    let entry = entry.trim();
    if let Ok(ip) = entry.parse::<IpAddr>() {
        return Some(ip);
    }
    if let Ok(sock) = entry.parse::<SocketAddr>() {
        return Some(sock.ip());
    }
    let inner = entry.strip_prefix('[')?.strip_suffix(']')?;
    inner.parse::<Ipv6Addr>().ok().map(IpAddr::V6)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use actix_web::http::header::{HeaderName, HeaderValue};

    use super::*;

    fn headers(lines: &[&str]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for line in lines {
            map.append(
                HeaderName::from_static("x-forwarded-for"),
                HeaderValue::from_str(line).unwrap(),
            );
        }
        map
    }

    fn client(trusted: u32, lines: &[&str]) -> Option<String> {
        let peer: IpAddr = "192.0.2.99".parse().unwrap();
        ClientAddresses::new(Some("X-Forwarded-For".into()), trusted)
            .from_parts(&headers(lines), Some(peer))
            .map(|ip| ip.to_string())
    }

    #[test]
    fn entries_may_carry_a_port_or_brackets() {
        for (entry, ip) in [
            ("203.0.113.7", "203.0.113.7"),
            ("203.0.113.7:5555", "203.0.113.7"),
            ("2001:db8::1", "2001:db8::1"),
            ("[2001:db8::1]:443", "2001:db8::1"),
            ("[2001:db8::1]", "2001:db8::1"),
            ("  198.51.100.1  ", "198.51.100.1"),
        ] {
            assert_eq!(parse_entry(entry).unwrap().to_string(), ip, "{entry}");
        }
        for bad in [
            "",
            "unknown",
            "203.0.113.7:port",
            "[2001:db8::1",
            "2001:db8::1]:1",
            "_hidden",
        ] {
            assert_eq!(parse_entry(bad), None, "{bad}");
        }
    }

    #[test]
    fn with_one_trusted_proxy_the_last_entry_is_the_client_even_with_a_port() {
        // The review's case: a client-chosen first entry, then the address
        // the balancer appended with a port.
        assert_eq!(client(1, &["10.1.7.1, 127.0.0.1:5555"]).as_deref(), Some("127.0.0.1"));
        assert_eq!(
            client(1, &["10.1.7.1", "[2001:db8::5]:80"]).as_deref(),
            Some("2001:db8::5")
        );
    }

    #[test]
    fn with_two_trusted_proxies_the_entry_second_from_the_right_is_the_client() {
        assert_eq!(
            client(2, &["6.6.6.6, 203.0.113.7, 10.0.0.2"]).as_deref(),
            Some("203.0.113.7")
        );
        // Across header lines, in order.
        assert_eq!(
            client(2, &["6.6.6.6, 203.0.113.7", "10.0.0.2"]).as_deref(),
            Some("203.0.113.7")
        );
    }

    #[test]
    fn a_missing_or_unreadable_client_entry_falls_back_to_the_peer_never_further_left() {
        // Fewer entries than trusted hops.
        assert_eq!(client(2, &["203.0.113.7"]).as_deref(), Some("192.0.2.99"));
        // The entry the balancer wrote is garbage: not the forged one left of it.
        assert_eq!(client(1, &["6.6.6.6, garbage"]).as_deref(), Some("192.0.2.99"));
        assert_eq!(client(1, &[]).as_deref(), Some("192.0.2.99"));
    }

    #[test]
    fn no_header_configured_means_the_peer() {
        let peer: IpAddr = "192.0.2.1".parse().unwrap();
        let addresses = ClientAddresses::new(None, 1);
        assert_eq!(addresses.from_parts(&headers(&["6.6.6.6"]), Some(peer)), Some(peer));
    }

    #[test]
    fn ipv6_clients_are_keyed_by_their_slash_64_and_mapped_ipv4_as_ipv4() {
        let key = |s: &str| ClientKey::from(s.parse::<IpAddr>().unwrap());
        assert_eq!(key("2001:db8:1:2:aaaa::1"), key("2001:db8:1:2:ffff:1:2:3"));
        assert_ne!(key("2001:db8:1:2::1"), key("2001:db8:1:3::1"));
        assert_eq!(key("::ffff:203.0.113.7"), key("203.0.113.7"));
        assert_ne!(key("203.0.113.7"), key("203.0.113.8"));
    }
}
