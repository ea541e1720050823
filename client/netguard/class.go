package netguard

import "net/netip"

// Address classes Class reports.
const (
	ClassLoopback    = "loopback"
	ClassPrivate     = "private"
	ClassLinkLocal   = "link-local"
	ClassUnspecified = "unspecified"
	ClassShared      = "shared (CGNAT)"
	ClassMetadata    = "cloud metadata"
	ClassMulticast   = "multicast"
	ClassReserved    = "reserved"
)

// metadata are the cloud metadata services' addresses (AWS, GCP, Azure,
// OpenStack, Oracle: 169.254.169.254; AWS ECS: 169.254.170.2; AWS IPv6:
// fd00:ec2::254; Alibaba: 100.100.100.200).
var metadata = []netip.Addr{
	netip.MustParseAddr("169.254.169.254"),
	netip.MustParseAddr("169.254.170.2"),
	netip.MustParseAddr("fd00:ec2::254"),
	netip.MustParseAddr("100.100.100.200"),
}

// ranges are the forbidden prefixes with their class, checked in order
// after the metadata addresses.
var ranges = []struct {
	prefix netip.Prefix
	class  string
}{
	{netip.MustParsePrefix("0.0.0.0/8"), ClassUnspecified},
	{netip.MustParsePrefix("10.0.0.0/8"), ClassPrivate},
	{netip.MustParsePrefix("100.64.0.0/10"), ClassShared},
	{netip.MustParsePrefix("127.0.0.0/8"), ClassLoopback},
	{netip.MustParsePrefix("169.254.0.0/16"), ClassLinkLocal},
	{netip.MustParsePrefix("172.16.0.0/12"), ClassPrivate},
	{netip.MustParsePrefix("192.0.0.0/24"), ClassReserved},
	{netip.MustParsePrefix("192.168.0.0/16"), ClassPrivate},
	{netip.MustParsePrefix("198.18.0.0/15"), ClassReserved},
	{netip.MustParsePrefix("224.0.0.0/4"), ClassMulticast},
	{netip.MustParsePrefix("240.0.0.0/4"), ClassReserved},
	{netip.MustParsePrefix("::/128"), ClassUnspecified},
	{netip.MustParsePrefix("::1/128"), ClassLoopback},
	{netip.MustParsePrefix("64:ff9b:1::/48"), ClassPrivate},
	{netip.MustParsePrefix("fc00::/7"), ClassPrivate},
	{netip.MustParsePrefix("fe80::/10"), ClassLinkLocal},
	{netip.MustParsePrefix("fec0::/10"), ClassPrivate},
	{netip.MustParsePrefix("ff00::/8"), ClassMulticast},
}

// IPv6 prefixes that carry an IPv4 address, and where.
var (
	compatible = netip.MustParsePrefix("::/96")        // last 32 bits
	nat64      = netip.MustParsePrefix("64:ff9b::/96") // last 32 bits
	sixToFour  = netip.MustParsePrefix("2002::/16")    // bits 16-47
)

// Class is the forbidden class of ip ("" when the default rule allows it).
// An IPv6 address that embeds an IPv4 one (mapped, compatible, NAT64,
// 6to4) has the embedded address's class; an invalid address is reserved.
func Class(ip netip.Addr) string {
	if !ip.IsValid() {
		return ClassReserved
	}
	ip = ip.WithZone("").Unmap()
	if ip.Is6() {
		b := ip.As16()
		switch {
		case nat64.Contains(ip), compatible.Contains(ip) && ip.Compare(netip.MustParseAddr("::1")) > 0:
			return Class(netip.AddrFrom4([4]byte(b[12:16])))
		case sixToFour.Contains(ip):
			return Class(netip.AddrFrom4([4]byte(b[2:6])))
		}
	}
	for _, m := range metadata {
		if ip == m {
			return ClassMetadata
		}
	}
	for _, r := range ranges {
		if r.prefix.Contains(ip) {
			return r.class
		}
	}
	return ""
}
