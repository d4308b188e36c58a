use std::net::IpAddr;

use crate::address::*;

fn refused(ip: &str, allow_loopback: bool) -> Option<&'static str> {
    let ip: IpAddr = ip.parse().unwrap();
    check_address(ip, allow_loopback).err().map(AddressRefusal::code)
}

/// Each refused range with addresses at its edges, and the public addresses
/// just outside them.
#[test]
fn ipv4_ranges_are_refused_by_name_and_their_neighbours_are_not() {
    let cases = [
        ("0.0.0.0", Some("unspecified")),
        ("0.0.0.1", Some("this_network")),
        ("0.255.255.255", Some("this_network")),
        ("1.0.0.0", None),
        ("9.255.255.255", None),
        ("10.0.0.0", Some("private")),
        ("10.255.255.255", Some("private")),
        ("11.0.0.0", None),
        ("100.63.255.255", None),
        ("100.64.0.0", Some("shared")),
        ("100.100.100.199", Some("shared")),
        ("100.100.100.200", Some("metadata")),
        ("100.100.100.201", Some("shared")),
        ("100.127.255.255", Some("shared")),
        ("100.128.0.0", None),
        ("126.255.255.255", None),
        ("127.0.0.0", Some("loopback")),
        ("127.0.0.1", Some("loopback")),
        ("127.255.255.255", Some("loopback")),
        ("128.0.0.0", None),
        ("169.253.255.255", None),
        ("169.254.0.0", Some("link_local")),
        ("169.254.169.253", Some("link_local")),
        ("169.254.169.254", Some("metadata")),
        ("169.254.169.255", Some("link_local")),
        ("169.254.255.255", Some("link_local")),
        ("169.255.0.0", None),
        ("172.15.255.255", None),
        ("172.16.0.0", Some("private")),
        ("172.31.255.255", Some("private")),
        ("172.32.0.0", None),
        ("192.167.255.255", None),
        ("192.168.0.0", Some("private")),
        ("192.168.255.255", Some("private")),
        ("192.169.0.0", None),
        ("223.255.255.255", None),
        ("224.0.0.0", Some("multicast")),
        ("239.255.255.255", Some("multicast")),
        ("240.0.0.0", None),
        ("255.255.255.254", None),
        ("255.255.255.255", Some("broadcast")),
        ("8.8.8.8", None),
        ("1.1.1.1", None),
    ];
    for (ip, expected) in cases {
        assert_eq!(refused(ip, false), expected, "{ip}");
    }
}

#[test]
fn ipv6_ranges_are_refused_by_name_and_their_neighbours_are_not() {
    let cases = [
        ("::", Some("unspecified")),
        ("::1", Some("loopback")),
        ("2001:4860:4860::8888", None),
        ("2606:4700::1111", None),
        ("fbff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", None),
        ("fc00::", Some("private")),
        ("fd00:ec2::253", Some("private")),
        ("fd00:ec2::254", Some("metadata")),
        ("fd00:ec2::255", Some("private")),
        ("fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", Some("private")),
        ("fe00::", None),
        ("fe7f:ffff:ffff:ffff:ffff:ffff:ffff:ffff", None),
        ("fe80::", Some("link_local")),
        ("fe80::1", Some("link_local")),
        ("febf:ffff:ffff:ffff:ffff:ffff:ffff:ffff", Some("link_local")),
        ("fec0::", Some("private")),
        ("feff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", Some("private")),
        ("ff00::", Some("multicast")),
        ("ff02::1", Some("multicast")),
        ("ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", Some("multicast")),
    ];
    for (ip, expected) in cases {
        assert_eq!(refused(ip, false), expected, "{ip}");
    }
}

#[test]
fn ipv6_forms_carrying_a_refused_ipv4_address_are_refused_as_it_is() {
    let cases = [
        // IPv4-mapped.
        ("::ffff:0.0.0.0", Some("unspecified")),
        ("::ffff:127.0.0.1", Some("loopback")),
        ("::ffff:10.1.2.3", Some("private")),
        ("::ffff:169.254.169.254", Some("metadata")),
        ("::ffff:169.254.1.1", Some("link_local")),
        ("::ffff:100.64.0.1", Some("shared")),
        ("::ffff:255.255.255.255", Some("broadcast")),
        ("::ffff:8.8.8.8", None),
        // IPv4-compatible.
        ("::2", Some("this_network")),
        ("::127.0.0.1", Some("loopback")),
        ("::192.168.1.1", Some("private")),
        ("::100.100.100.200", Some("metadata")),
        ("::8.8.8.8", None),
        // NAT64.
        ("64:ff9b::127.0.0.1", Some("loopback")),
        ("64:ff9b::169.254.169.254", Some("metadata")),
        ("64:ff9b::172.16.0.1", Some("private")),
        ("64:ff9b::224.0.0.1", Some("multicast")),
        ("64:ff9b::8.8.8.8", None),
        // Neither: the last 32 bits are not an IPv4 address here.
        ("::fffe:7f00:1", None),
        ("::1:ffff:7f00:1", None),
        ("64:ff9b:1::7f00:1", None),
        ("64:ff9a::7f00:1", None),
        ("1::7f00:1", None),
    ];
    for (ip, expected) in cases {
        assert_eq!(refused(ip, false), expected, "{ip}");
    }
}

#[test]
fn allowing_loopback_allows_loopback_only() {
    for ip in [
        "127.0.0.1",
        "127.1.2.3",
        "::1",
        "::ffff:127.0.0.1",
        "64:ff9b::127.0.0.1",
    ] {
        assert_eq!(refused(ip, true), None, "{ip}");
    }
    assert_eq!(refused("10.0.0.1", true), Some("private"));
    assert_eq!(refused("169.254.169.254", true), Some("metadata"));
    assert_eq!(refused("0.0.0.0", true), Some("unspecified"));
    assert_eq!(refused("::", true), Some("unspecified"));
    assert_eq!(refused("8.8.8.8", true), None);
}

#[test]
fn every_refusal_has_its_code() {
    let codes = [
        (AddressRefusal::Loopback, "loopback"),
        (AddressRefusal::Private, "private"),
        (AddressRefusal::LinkLocal, "link_local"),
        (AddressRefusal::Metadata, "metadata"),
        (AddressRefusal::Shared, "shared"),
        (AddressRefusal::Unspecified, "unspecified"),
        (AddressRefusal::ThisNetwork, "this_network"),
        (AddressRefusal::Multicast, "multicast"),
        (AddressRefusal::Broadcast, "broadcast"),
    ];
    for (refusal, code) in codes {
        assert_eq!(refusal.code(), code);
        assert_eq!(UrlRefusal::Address(refusal).code(), code);
    }
    assert_eq!(UrlRefusal::Invalid.code(), "invalid_url");
    assert_eq!(UrlRefusal::Scheme("http".to_owned()).code(), "scheme");
}

#[test]
fn an_https_url_to_a_name_is_accepted_and_its_address_checked_later() {
    let target = check_url("https://hooks.example.com/linecast?x=1", false).unwrap();
    assert_eq!(target.url().as_str(), "https://hooks.example.com/linecast?x=1");
    assert_eq!(target.host(), "hooks.example.com");
    assert_eq!(target.port(), 443);
    assert_eq!(
        check_url("https://hooks.example.com:8443/", false).unwrap().port(),
        8443
    );
    assert_eq!(
        check_url("https://HOOKS.Example.com/", false).unwrap().host(),
        "hooks.example.com"
    );
    assert_eq!(check_url("https://8.8.8.8/", false).unwrap().host(), "8.8.8.8");
    // A name that may resolve to loopback is for the delivery's check.
    assert!(check_url("https://localhost/", false).is_ok());
}

#[test]
fn only_https_is_accepted_outside_loopback() {
    for allow in [false, true] {
        assert_eq!(
            check_url("http://hooks.example.com/", allow),
            Err(UrlRefusal::Scheme("http".to_owned()))
        );
        assert_eq!(
            check_url("http://8.8.8.8/", allow),
            Err(UrlRefusal::Scheme("http".to_owned()))
        );
        assert_eq!(
            check_url("http://localhost.example.com/", allow),
            Err(UrlRefusal::Scheme("http".to_owned()))
        );
        assert_eq!(
            check_url("ftp://hooks.example.com/", allow),
            Err(UrlRefusal::Scheme("ftp".to_owned()))
        );
        assert_eq!(check_url("hooks.example.com/x", allow), Err(UrlRefusal::Invalid));
        assert_eq!(check_url("https://", allow), Err(UrlRefusal::Invalid));
    }
}

#[test]
fn http_to_a_loopback_host_is_accepted_only_when_loopback_is_allowed() {
    for url in ["http://localhost:8080/hook", "http://LOCALHOST:8080/hook"] {
        assert_eq!(
            check_url(url, false),
            Err(UrlRefusal::Scheme("http".to_owned())),
            "{url}"
        );
        assert_eq!(check_url(url, true).unwrap().port(), 8080, "{url}");
    }
    // A loopback address is refused as such before its scheme is looked at.
    for url in ["http://127.0.0.1:8080/hook", "http://[::1]:8080/hook"] {
        assert_eq!(
            check_url(url, false),
            Err(UrlRefusal::Address(AddressRefusal::Loopback)),
            "{url}"
        );
        assert_eq!(check_url(url, true).unwrap().port(), 8080, "{url}");
    }
    assert_eq!(check_url("http://localhost/", true).unwrap().port(), 80);
    assert_eq!(check_url("http://[::1]/", true).unwrap().host(), "[::1]");
    assert!(check_url("http://[::ffff:127.0.0.1]/", true).is_ok());
}

#[test]
fn a_url_whose_host_is_a_refused_address_is_refused_with_its_reason() {
    assert_eq!(
        check_url("https://127.0.0.1/", false),
        Err(UrlRefusal::Address(AddressRefusal::Loopback))
    );
    // 0x7f.1 is how the URL standard may write 127.0.0.1.
    assert_eq!(
        check_url("https://0x7f.1/", false),
        Err(UrlRefusal::Address(AddressRefusal::Loopback))
    );
    assert!(check_url("https://127.0.0.1/", true).is_ok());
    for allow in [false, true] {
        assert_eq!(
            check_url("https://10.0.0.1/", allow),
            Err(UrlRefusal::Address(AddressRefusal::Private))
        );
        assert_eq!(
            check_url("http://10.0.0.1/", allow),
            Err(UrlRefusal::Address(AddressRefusal::Private))
        );
        assert_eq!(
            check_url("https://169.254.169.254/latest/meta-data/", allow),
            Err(UrlRefusal::Address(AddressRefusal::Metadata))
        );
        assert_eq!(
            check_url("https://[fe80::1]/", allow),
            Err(UrlRefusal::Address(AddressRefusal::LinkLocal))
        );
        assert_eq!(
            check_url("https://[::ffff:192.168.0.1]/", allow),
            Err(UrlRefusal::Address(AddressRefusal::Private))
        );
    }
}
