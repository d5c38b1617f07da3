import Foundation
import Testing
@testable import WebImageLoading

/// The safe-fetch guard's classifier and allow-list, address by address: every restricted range,
/// the IPv6 forms that carry an IPv4 address, and public addresses that must pass.
@Suite("Address policy")
struct AddressPolicyTests {
    private func kind(_ text: String) -> RestrictedRange.Kind? {
        RestrictedRange.containing(IPAddress(text)!)?.kind
    }

    @Test(arguments: [
        ("0.0.0.0", RestrictedRange.Kind.unspecified), ("0.1.2.3", .unspecified),
        ("127.0.0.1", .loopback), ("127.255.255.254", .loopback),
        ("10.0.0.1", .privateUse), ("10.255.255.255", .privateUse),
        ("172.16.0.1", .privateUse), ("172.31.255.255", .privateUse),
        ("192.168.0.1", .privateUse), ("192.168.255.255", .privateUse),
        ("100.64.0.1", .sharedAddressSpace), ("100.127.255.255", .sharedAddressSpace),
        ("169.254.0.1", .linkLocal), ("169.254.169.254", .linkLocal),
        ("192.0.0.1", .protocolAssignments), ("192.0.0.192", .protocolAssignments),
        ("198.18.0.1", .benchmarking), ("198.19.255.255", .benchmarking),
        ("224.0.0.1", .multicast), ("239.255.255.250", .multicast),
        ("240.0.0.1", .reserved), ("255.255.255.255", .reserved),
    ])
    func everyRestrictedIPv4RangeIsRefused(address: String, expected: RestrictedRange.Kind) {
        #expect(kind(address) == expected, "\(address)")
        #expect(AddressPolicy.denyPrivate.refusal(for: IPAddress(address)!) != nil)
    }

    @Test(arguments: [
        ("::", RestrictedRange.Kind.unspecified), ("::1", .loopback),
        ("fc00::1", .privateUse), ("fd12:3456:789a::1", .privateUse),
        ("fe80::1", .linkLocal), ("febf:ffff::1", .linkLocal),
        ("fec0::1", .siteLocal), ("ff02::1", .multicast), ("ff0e::1", .multicast),
        ("64:ff9b:1::a00:1", .localTranslation),
    ])
    func everyRestrictedIPv6RangeIsRefused(address: String, expected: RestrictedRange.Kind) {
        #expect(kind(address) == expected, "\(address)")
    }

    /// IPv6 forms that carry an IPv4 address are judged by that address.
    @Test(arguments: [
        ("::ffff:127.0.0.1", RestrictedRange.Kind.loopback, "::ffff:0:0/96"),
        ("::ffff:7f00:1", .loopback, "::ffff:0:0/96"),
        ("::ffff:169.254.169.254", .linkLocal, "::ffff:0:0/96"),
        ("::ffff:10.0.0.1", .privateUse, "::ffff:0:0/96"),
        ("::ffff:0:192.168.1.1", .privateUse, "::ffff:0:0:0/96"),
        ("::127.0.0.1", .loopback, "::/96"),
        ("::10.1.2.3", .privateUse, "::/96"),
        ("64:ff9b::127.0.0.1", .loopback, "64:ff9b::/96"),
        ("64:ff9b::a9fe:a9fe", .linkLocal, "64:ff9b::/96"),
        ("64:ff9b::100.64.0.1", .sharedAddressSpace, "64:ff9b::/96"),
        ("2002:7f00:1::", .loopback, "2002::/16"),
        ("2002:a9fe:a9fe::1", .linkLocal, "2002::/16"),
        ("2002:c0a8:101::", .privateUse, "2002::/16"),
        ("2001:0:7f00:1::", .loopback, "2001::/32"),
        ("2001:0:4136:e378:8000:63bf:f5ff:fffe", .privateUse, "2001::/32"),  // client ~f5ff:fffe = 10.0.0.1
    ])
    func ipv6FormsEmbeddingARestrictedIPv4AreRefused(address: String, expected: RestrictedRange.Kind,
                                                    form: String) throws {
        let range = try #require(RestrictedRange.containing(IPAddress(address)!), "\(address)")
        #expect(range.kind == expected, "\(address)")
        #expect(range.embedding == IPNetwork(form), "\(address)")
        #expect(range.embeddedIPv4 != nil)
    }

    @Test(arguments: ["8.8.8.8", "93.184.216.34", "1.1.1.1", "172.15.255.255", "172.32.0.1", "100.63.255.255",
                      "100.128.0.1", "192.0.1.1", "198.17.255.255", "198.20.0.1", "223.255.255.255", "11.0.0.1",
                      "2606:4700::1111", "2001:4860:4860::8888", "::ffff:8.8.8.8", "64:ff9b::808:808",
                      "2002:808:808::1", "2001:0:4136:e378:8000:63bf:3fff:fdd2", "fbff::1", "fe7f::1"])
    func publicAddressesPass(address: String) {
        let ip = IPAddress(address)!
        #expect(RestrictedRange.containing(ip) == nil, "\(address): \(String(describing: RestrictedRange.containing(ip)))")
        #expect(AddressPolicy.denyPrivate.refusal(for: ip) == nil)
    }

    @Test func theAllowListLetsChosenNetworksAndHostsThrough() throws {
        let policy = AddressPolicy(allowedNetworks: [IPNetwork("10.20.0.0/16")!, IPNetwork("127.0.0.1")!],
                                   allowedHosts: ["Images.Internal.", "[::1]"])
        #expect(policy.refusal(for: IPAddress("10.20.3.4")!) == nil)
        #expect(policy.refusal(for: IPAddress("::ffff:10.20.3.4")!) == nil, "an embedded allowed address")
        #expect(policy.refusal(for: IPAddress("10.21.0.1")!)?.kind == .privateUse)
        #expect(policy.refusal(for: IPAddress("127.0.0.1")!) == nil)
        #expect(policy.refusal(for: IPAddress("127.0.0.2")!)?.kind == .loopback)
        #expect(policy.refusal(for: IPAddress("169.254.169.254")!)?.kind == .linkLocal)
        #expect(policy.allowsHost("images.internal"))
        #expect(policy.allowsHost("IMAGES.internal."))
        #expect(!policy.allowsHost("cdn.images.internal"), "a name passes only itself")
        #expect(policy.allowsHost("::1") && policy.allowsHost("0:0::1"))
        #expect(!AddressPolicy.denyPrivate.allowsHost("localhost"))
    }

    @Test func addressesAndNetworksParseStrictly() throws {
        #expect(IPAddress("127.1") == nil && IPAddress("0x7f000001") == nil && IPAddress("2130706433") == nil,
                "legacy forms are names: what they resolve to is checked")
        #expect(IPAddress("[fe80::1%eth0]")?.description == "fe80::1")
        #expect(IPAddress("::FFFF:127.0.0.1")?.description == "::ffff:127.0.0.1")
        #expect(IPAddress("example.com") == nil && IPAddress("") == nil)
        #expect(IPNetwork("10.1.2.3/8")?.description == "10.0.0.0/8")
        #expect(IPNetwork("fd00::1/8")?.description == "fd00::/8")
        #expect(IPNetwork("10.0.0.0/33") == nil && IPNetwork("::/129") == nil && IPNetwork("10.0.0.0/") == nil)
        #expect(IPNetwork("10.0.0.0/+8") == nil && IPNetwork("host/8") == nil)
        #expect(IPNetwork("0.0.0.0/0")?.contains(IPAddress("8.8.8.8")!) == true)
        #expect(IPNetwork("0.0.0.0/0")?.contains(IPAddress("::1")!) == false, "families never mix")
        #expect(IPNetwork("192.168.1.7")?.prefixLength == 32)
    }
}
