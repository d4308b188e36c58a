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
//! The header is read only when the TCP peer lies in one of the
//! `LINECAST_TRUSTED_PROXY_CIDRS` ranges (`ProxyRange`: the proxies that
//! connect to the server). From any other peer it is ignored and the client
//! is that peer, so a client reaching an instance directly cannot name its
//! own address. An IPv4-mapped IPv6 peer (`::ffff:a.b.c.d`) is matched as
//! the IPv4 address. Settings refuse the header without ranges.
//!
//! Limits key an address by `ClientKey`: an IPv4 address, or an IPv6
//! address's /64 network (one subscriber's prefix), so a client cannot
//! multiply its allowance by rotating the low bits of its IPv6 address.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};

use actix_web::dev::ServiceRequest;
use actix_web::http::header::HeaderMap;

/// How to find the client address of a request.
#[derive(Debug, Clone)]
pub struct ClientAddresses {
    /// Lower-cased header name, when a trusted proxy sets one.
    header: Option<String>,
    /// Proxies that append to the header (at least 1).
    trusted_proxies: usize,
    /// Peers whose header is read.
    proxy_ranges: Vec<ProxyRange>,
}

/// One range of trusted proxy addresses, in CIDR notation: `10.0.0.0/8`,
/// `fd00::/8`, or a bare address (its own /32 or /128).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProxyRange {
    /// The network address (no host bits set); IPv4 for a mapped range.
    network: IpAddr,
    prefix: u8,
}

/// An entry of `LINECAST_TRUSTED_PROXY_CIDRS` that is not a CIDR.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("'{entry}' {reason}")]
pub struct BadRange {
    pub entry: String,
    pub reason: &'static str,
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

impl ProxyRange {
    /// Reads `address/prefix` or a bare address. Host bits set past the
    /// prefix (`10.0.0.1/8`) are refused rather than masked: they usually
    /// mean a /32 was intended, and masking would trust a whole network.
    pub fn parse(text: &str) -> Result<Self, BadRange> {
        let entry = text.trim();
        let bad = |reason| BadRange {
            entry: entry.to_owned(),
            reason,
        };
        let (address, prefix) = match entry.split_once('/') {
            Some((address, prefix)) => (address, Some(prefix)),
            None => (entry, None),
        };
        let address: IpAddr = address
            .parse()
            .map_err(|_| bad("is not an IP address or CIDR (e.g. 10.0.0.0/8, ::1/128)"))?;
        let bits = if address.is_ipv4() { 32 } else { 128 };
        let prefix = match prefix {
            None => bits,
            Some(p) => p
                .parse::<u8>()
                .ok()
                .filter(|p| *p <= bits)
                .ok_or_else(|| bad("has a prefix length out of range (0-32 for IPv4, 0-128 for IPv6)"))?,
        };
        let range = Self {
            network: address,
            prefix,
        };
        if range.masked(address) != address {
            return Err(bad("has host bits set past its prefix length"));
        }
        // A mapped range (`::ffff:10.0.0.0/104`) is the IPv4 range it maps.
        Ok(match address {
            IpAddr::V6(v6) if prefix >= 96 => v6.to_ipv4_mapped().map_or(range, |v4| Self {
                network: IpAddr::V4(v4),
                prefix: prefix - 96,
            }),
            _ => range,
        })
    }

    /// Whether `addr` lies in this range (a mapped IPv6 address as IPv4).
    pub fn contains(&self, addr: IpAddr) -> bool {
        let addr = addr.to_canonical();
        addr.is_ipv4() == self.network.is_ipv4() && self.masked(addr) == self.network
    }

    /// `addr` with the bits past this range's prefix cleared.
    fn masked(&self, addr: IpAddr) -> IpAddr {
        match addr {
            IpAddr::V4(v4) => {
                let mask = u32::MAX.checked_shl(32 - u32::from(self.prefix)).unwrap_or(0);
                IpAddr::V4(Ipv4Addr::from(u32::from(v4) & mask))
            }
            IpAddr::V6(v6) => {
                let mask = u128::MAX.checked_shl(128 - u32::from(self.prefix)).unwrap_or(0);
                IpAddr::V6(Ipv6Addr::from(u128::from(v6) & mask))
            }
        }
    }
}

/// The ranges of a comma-separated list (empty entries skipped).
pub fn parse_ranges(list: &str) -> Result<Vec<ProxyRange>, BadRange> {
    list.split(',')
        .map(str::trim)
        .filter(|entry| !entry.is_empty())
        .map(ProxyRange::parse)
        .collect()
}

impl ClientAddresses {
    /// `header` is read from peers in `proxy_ranges` only.
    pub fn new(header: Option<String>, trusted_proxies: u32, proxy_ranges: Vec<ProxyRange>) -> Self {
        Self {
            header: header.map(|h| h.to_ascii_lowercase()),
            trusted_proxies: usize::try_from(trusted_proxies.max(1)).unwrap_or(1),
            proxy_ranges,
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
        if !peer.is_some_and(|p| self.proxy_ranges.iter().any(|r| r.contains(p))) {
            return peer;
        }
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

    /// The client seen by a server behind `trusted` proxies, the nearest
    /// of which (192.0.2.99, in 192.0.2.0/24) is the TCP peer.
    fn client(trusted: u32, lines: &[&str]) -> Option<String> {
        client_from("192.0.2.99", "192.0.2.0/24", trusted, lines)
    }

    fn client_from(peer: &str, ranges: &str, trusted: u32, lines: &[&str]) -> Option<String> {
        ClientAddresses::new(Some("X-Forwarded-For".into()), trusted, parse_ranges(ranges).unwrap())
            .from_parts(&headers(lines), Some(peer.parse().unwrap()))
            .map(|ip| ip.to_string())
    }

    fn within(range: &str, addr: &str) -> bool {
        ProxyRange::parse(range).unwrap().contains(addr.parse().unwrap())
    }

    #[test]
    fn a_range_holds_the_addresses_under_its_prefix_in_its_own_family() {
        for (range, addr, inside) in [
            ("10.0.0.0/8", "10.0.0.1", true),
            ("10.0.0.0/8", "10.255.255.255", true),
            ("10.0.0.0/8", "11.0.0.0", false),
            ("10.0.0.0/8", "9.255.255.255", false),
            ("192.168.4.0/22", "192.168.7.200", true),
            ("192.168.4.0/22", "192.168.8.1", false),
            ("127.0.0.1/32", "127.0.0.1", true),
            ("127.0.0.1/32", "127.0.0.2", false),
            // A bare address is its own /32 or /128.
            ("127.0.0.1", "127.0.0.1", true),
            ("127.0.0.1", "127.0.0.2", false),
            ("::1", "::1", true),
            ("::1", "::2", false),
            ("0.0.0.0/0", "203.0.113.7", true),
            ("::1/128", "::1", true),
            ("::1/128", "::2", false),
            ("fd00::/8", "fd12:3456::1", true),
            ("fd00::/8", "fe80::1", false),
            ("2001:db8::/32", "2001:db8:ffff::1", true),
            ("2001:db8::/32", "2001:db9::1", false),
            // IPv4-mapped IPv6 peers are their IPv4 address.
            ("10.0.0.0/8", "::ffff:10.1.2.3", true),
            ("10.0.0.0/8", "::ffff:11.1.2.3", false),
            ("127.0.0.1/32", "::ffff:127.0.0.1", true),
            // A mapped range is the IPv4 range it maps.
            ("::ffff:10.0.0.0/104", "10.9.9.9", true),
            ("::ffff:10.0.0.0/104", "::ffff:10.9.9.9", true),
            ("::ffff:10.0.0.0/104", "11.0.0.1", false),
            // The families never mix otherwise.
            ("::/0", "203.0.113.7", false),
            ("0.0.0.0/0", "2001:db8::1", false),
            ("::1/128", "127.0.0.1", false),
        ] {
            assert_eq!(within(range, addr), inside, "{addr} in {range}");
        }
    }

    #[test]
    fn a_list_of_ranges_is_read_and_a_malformed_entry_is_named() {
        assert_eq!(parse_ranges(" 10.0.0.0/8 , 127.0.0.1/32,::1/128,").unwrap().len(), 3);
        assert_eq!(parse_ranges("").unwrap(), Vec::new());
        for (list, entry) in [
            ("10.0.0.0/8,10.0.0.0/33", "10.0.0.0/33"),
            ("::/129", "::/129"),
            ("10.0.0.0/", "10.0.0.0/"),
            ("10.0.0.0/x", "10.0.0.0/x"),
            ("10.0.0/8", "10.0.0/8"),
            ("localhost", "localhost"),
            ("10.0.0.0/8/8", "10.0.0.0/8/8"),
            ("10.0.0.1/8", "10.0.0.1/8"),
            ("2001:db8::1/32", "2001:db8::1/32"),
            ("127.0.0.1/32 ::1/128", "127.0.0.1/32 ::1/128"),
        ] {
            assert_eq!(parse_ranges(list).unwrap_err().entry, entry, "{list}");
        }
        assert_eq!(
            parse_ranges("10.0.0.1/8").unwrap_err().to_string(),
            "'10.0.0.1/8' has host bits set past its prefix length"
        );
    }

    #[test]
    fn the_header_is_read_only_from_a_peer_inside_the_trusted_ranges() {
        let trusted = "10.0.0.0/8,127.0.0.1/32,::1/128";
        let xff = ["6.6.6.6, 203.0.113.7"];
        for (peer, client) in [
            ("10.20.30.40", "203.0.113.7"),
            ("127.0.0.1", "203.0.113.7"),
            ("::1", "203.0.113.7"),
            ("::ffff:10.0.0.9", "203.0.113.7"),
            // Anyone else is the client, whatever it wrote.
            ("198.51.100.4", "198.51.100.4"),
            ("127.0.0.2", "127.0.0.2"),
            ("::2", "::2"),
            ("::ffff:198.51.100.4", "::ffff:198.51.100.4"),
            ("2001:db8::5", "2001:db8::5"),
        ] {
            assert_eq!(client_from(peer, trusted, 1, &xff).as_deref(), Some(client), "{peer}");
        }
    }

    #[test]
    fn without_trusted_ranges_the_header_is_never_read() {
        assert_eq!(
            client_from("127.0.0.1", "", 1, &["203.0.113.7"]).as_deref(),
            Some("127.0.0.1")
        );
        let addresses = ClientAddresses::new(Some("X-Forwarded-For".into()), 1, parse_ranges("0.0.0.0/0").unwrap());
        assert_eq!(addresses.from_parts(&headers(&["203.0.113.7"]), None), None);
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
        let addresses = ClientAddresses::new(None, 1, parse_ranges("0.0.0.0/0").unwrap());
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
