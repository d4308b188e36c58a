//! Which endpoints a delivery may reach: an `https` URL, and only public
//! addresses. The URL is checked when an endpoint is saved; every address
//! its host resolves to is checked again at every delivery (a name may
//! change what it points to after it was saved).
//!
//! Refused: loopback, private, link-local, cloud metadata, shared (CGNAT),
//! unspecified, "this network", multicast and broadcast addresses, and the
//! IPv6 forms that carry such an IPv4 address (IPv4-mapped,
//! IPv4-compatible, NAT64 `64:ff9b::/96`). A setting for tests and local
//! use allows loopback, and then `http` too, for loopback hosts only.
//!
//! Owns the ranges and the refusal codes. Knows nothing of resolvers or
//! sockets: the resolved address comes in as an argument.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use url::{Host, Url};

/// Why an address is refused. Each has a stable [`code`](Self::code).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum AddressRefusal {
    /// 127.0.0.0/8, ::1.
    #[error("a loopback address")]
    Loopback,
    /// 10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16, fc00::/7, fec0::/10.
    #[error("a private address")]
    Private,
    /// 169.254.0.0/16, fe80::/10.
    #[error("a link-local address")]
    LinkLocal,
    /// 169.254.169.254, fd00:ec2::254, 100.100.100.200.
    #[error("a cloud metadata address")]
    Metadata,
    /// 100.64.0.0/10, carrier-grade NAT.
    #[error("a shared (carrier-grade NAT) address")]
    Shared,
    /// 0.0.0.0, ::.
    #[error("the unspecified address")]
    Unspecified,
    /// 0.0.0.0/8 other than 0.0.0.0.
    #[error("a \"this network\" address")]
    ThisNetwork,
    /// 224.0.0.0/4, ff00::/8.
    #[error("a multicast address")]
    Multicast,
    /// 255.255.255.255.
    #[error("the broadcast address")]
    Broadcast,
}

impl AddressRefusal {
    /// The refusal's stable code, as the API and the portal show it.
    pub fn code(self) -> &'static str {
        match self {
            Self::Loopback => "loopback",
            Self::Private => "private",
            Self::LinkLocal => "link_local",
            Self::Metadata => "metadata",
            Self::Shared => "shared",
            Self::Unspecified => "unspecified",
            Self::ThisNetwork => "this_network",
            Self::Multicast => "multicast",
            Self::Broadcast => "broadcast",
        }
    }
}

/// Why an endpoint URL is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum UrlRefusal {
    /// Not a URL.
    #[error("not a URL")]
    Invalid,
    /// Not `https` (nor `http` to a loopback host when loopback is allowed).
    #[error("the scheme must be https, not {0}")]
    Scheme(String),
    /// The host is an address that is refused.
    #[error("the host is {0}")]
    Address(AddressRefusal),
}

impl UrlRefusal {
    /// The refusal's stable code: `invalid_url`, `scheme`, or the address
    /// refusal's own code.
    pub fn code(&self) -> &'static str {
        match self {
            Self::Invalid => "invalid_url",
            Self::Scheme(_) => "scheme",
            Self::Address(refusal) => refusal.code(),
        }
    }
}

/// An endpoint URL that passed [`check_url`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    url: Url,
}

impl Target {
    /// The URL, as parsed (normalised by the URL standard).
    pub fn url(&self) -> &Url {
        &self.url
    }

    /// The host to resolve (an address literal as written in the URL).
    pub fn host(&self) -> String {
        self.url.host_str().unwrap_or_default().to_owned()
    }

    /// The port to connect to (the scheme's default when none is written).
    pub fn port(&self) -> u16 {
        self.url.port_or_known_default().unwrap_or(443)
    }
}

/// IPv4 ranges refused, most specific first: (network, prefix length, reason).
const V4: [([u8; 4], u32, AddressRefusal); 12] = [
    ([169, 254, 169, 254], 32, AddressRefusal::Metadata),
    ([100, 100, 100, 200], 32, AddressRefusal::Metadata),
    ([0, 0, 0, 0], 32, AddressRefusal::Unspecified),
    ([255, 255, 255, 255], 32, AddressRefusal::Broadcast),
    ([0, 0, 0, 0], 8, AddressRefusal::ThisNetwork),
    ([127, 0, 0, 0], 8, AddressRefusal::Loopback),
    ([10, 0, 0, 0], 8, AddressRefusal::Private),
    ([172, 16, 0, 0], 12, AddressRefusal::Private),
    ([192, 168, 0, 0], 16, AddressRefusal::Private),
    ([169, 254, 0, 0], 16, AddressRefusal::LinkLocal),
    ([100, 64, 0, 0], 10, AddressRefusal::Shared),
    ([224, 0, 0, 0], 4, AddressRefusal::Multicast),
];

/// IPv6 ranges refused, most specific first (those carrying an IPv4
/// address are read apart, [`embedded_v4`]).
const V6: [(u128, u32, AddressRefusal); 7] = [
    (0xfd00_0ec2_0000_0000_0000_0000_0000_0254, 128, AddressRefusal::Metadata),
    (0, 128, AddressRefusal::Unspecified),
    (1, 128, AddressRefusal::Loopback),
    (0xfc00 << 112, 7, AddressRefusal::Private),
    (0xfec0 << 112, 10, AddressRefusal::Private),
    (0xfe80 << 112, 10, AddressRefusal::LinkLocal),
    (0xff00 << 112, 8, AddressRefusal::Multicast),
];

/// The IPv4 address an IPv6 address carries in its last 32 bits, when it
/// is IPv4-mapped (`::ffff:0:0/96`), IPv4-compatible (`::/96`, other than
/// `::` and `::1`) or NAT64 (`64:ff9b::/96`).
fn embedded_v4(ip: Ipv6Addr) -> Option<Ipv4Addr> {
    let bits = u128::from(ip);
    let prefix = bits >> 32;
    let carries = prefix == 0xffff || prefix == 0x0064_ff9b_0000_0000_0000_0000 || (prefix == 0 && bits > 1);
    carries.then(|| Ipv4Addr::from(bits as u32))
}

fn refusal_v4(ip: Ipv4Addr) -> Option<AddressRefusal> {
    let bits = u32::from(ip);
    V4.iter()
        .find(|(net, len, _)| bits >> (32 - len) == u32::from_be_bytes(*net) >> (32 - len))
        .map(|(_, _, refusal)| *refusal)
}

fn refusal_v6(ip: Ipv6Addr) -> Option<AddressRefusal> {
    if let Some(v4) = embedded_v4(ip) {
        return refusal_v4(v4);
    }
    let bits = u128::from(ip);
    V6.iter()
        .find(|(net, len, _)| bits >> (128 - len) == net >> (128 - len))
        .map(|(_, _, refusal)| *refusal)
}

/// Checks an address a host resolved to, at every delivery: refused when
/// in a refused range, loopback allowed when `allow_loopback`.
pub fn check_address(ip: IpAddr, allow_loopback: bool) -> Result<(), AddressRefusal> {
    let refusal = match ip {
        IpAddr::V4(v4) => refusal_v4(v4),
        IpAddr::V6(v6) => refusal_v6(v6),
    };
    match refusal {
        None => Ok(()),
        Some(AddressRefusal::Loopback) if allow_loopback => Ok(()),
        Some(refusal) => Err(refusal),
    }
}

/// Checks an endpoint URL when it is saved: `https` only; when
/// `allow_loopback`, `http` too for a loopback host (`localhost` or a
/// loopback address). A host written as an address is checked as
/// [`check_address`] does; a name is checked once resolved, at delivery.
pub fn check_url(text: &str, allow_loopback: bool) -> Result<Target, UrlRefusal> {
    let url = Url::parse(text).map_err(|_| UrlRefusal::Invalid)?;
    let address = match url.host() {
        Some(Host::Ipv4(v4)) => Some(IpAddr::V4(v4)),
        Some(Host::Ipv6(v6)) => Some(IpAddr::V6(v6)),
        Some(Host::Domain(_)) | None => None,
    };
    if let Some(ip) = address {
        check_address(ip, allow_loopback).map_err(UrlRefusal::Address)?;
    }
    let loopback_host = match address {
        Some(ip) => check_address(ip, false) == Err(AddressRefusal::Loopback),
        None => url.host_str() == Some("localhost"),
    };
    match url.scheme() {
        "https" => {}
        "http" if allow_loopback && loopback_host => {}
        other => return Err(UrlRefusal::Scheme(other.to_owned())),
    }
    Ok(Target { url })
}
