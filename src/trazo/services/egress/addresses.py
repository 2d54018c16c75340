"""Which addresses a connection to a user-chosen URL may reach: global ones, and hosts the operator names."""
import ipaddress
import socket

# Addresses that carry an IPv4 address which the kernel or a gateway may reach instead.
_IPV4_COMPATIBLE = ipaddress.IPv6Network("::/96")


class AddressRefused(ConnectionRefusedError):
    """A guarded connection to an address that is not public (and not allowed by the operator)."""


def public(ip):
    """Whether `ip` (an ipaddress object) is a global unicast address, also behind IPv6 wrappings."""
    if ip.version == 6:
        embedded = ip.ipv4_mapped or ip.sixtofour or (ip.teredo[1] if ip.teredo else None)
        if embedded is None and ip in _IPV4_COMPATIBLE:
            embedded = ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
        if embedded is not None and not public(embedded):
            return False
    return ip.is_global and not (ip.is_multicast or ip.is_reserved or ip.is_unspecified)


def split_entry(entry):
    """"host", "host:port", "[v6]:port" or a bare IPv6 address -> (host, port or None)."""
    entry = entry.strip().lower()
    if entry.startswith("["):
        host, _, rest = entry[1:].partition("]")
        return host, int(rest[1:]) if rest.startswith(":") else None
    if entry.count(":") == 1:
        host, port = entry.split(":")
        return host, int(port)
    return entry, None


def _resolve(host):
    try:
        return {info[4][0] for info in socket.getaddrinfo(host, None, proto=socket.IPPROTO_TCP)}
    except (OSError, UnicodeError):
        return set()  # an allowed name that does not resolve allows nothing


def _address(text):
    try:
        return ipaddress.ip_address(text.split("%", 1)[0])
    except ValueError:
        return None


class AddressPolicy:
    """Global addresses, plus the addresses the allowed entries name (resolved now, once per call)."""

    def __init__(self, allowed=()):
        self.allowed = set()
        for entry in allowed:
            host, port = split_entry(entry)
            literal = _address(host)
            for ip in [literal] if literal else filter(None, map(_address, _resolve(host))):
                self.allowed.add((ip, port))

    def permits(self, ip, port):
        return public(ip) or (ip, None) in self.allowed or (ip, port) in self.allowed

    def check(self, family, address):
        """Raise AddressRefused unless `address` (a socket address of `family`) may be connected to."""
        if family not in (socket.AF_INET, socket.AF_INET6):
            raise AddressRefused("only internet addresses may be reached")
        ip = _address(address[0])
        if ip is None or not self.permits(ip, address[1]):
            raise AddressRefused("address not allowed")
