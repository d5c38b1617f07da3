import Foundation
import NIOPosix
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Turns a host name into the addresses the safe-fetch guard checks and then connects to. The
/// guard connects only to an address from the answer it checked (for
/// ``AddressPolicy/addressLifetime``), never through a second lookup, so a name server that answers
/// differently the next time (DNS rebinding) cannot move a checked connection.
///
/// The default is ``SystemHostResolver``; tests and servers with their own resolution inject
/// another on ``DownloaderConfig/hostResolver``.
public protocol HostResolving: Sendable {
    /// The addresses of `host` for a TCP connection to `port`, in the order to try them. Throws
    /// when the name cannot be resolved; an empty answer counts as unresolvable.
    func addresses(of host: String, port: Int) async throws -> [IPAddress]
}

/// The system resolver (`getaddrinfo`, so `/etc/hosts` and the configured name servers apply),
/// run on NIO's blocking-I/O thread pool so no event loop or task waits on it.
public struct SystemHostResolver: HostResolving {
    /// The system resolver.
    public init() {}

    /// The IPv4 and IPv6 addresses `getaddrinfo` answers for `host`, in its order, without repeats.
    public func addresses(of host: String, port: Int) async throws -> [IPAddress] {
        try await NIOThreadPool.singleton.runIfActive { try Self.lookUp(host, port: port) }
    }

    /// The blocking lookup.
    static func lookUp(_ host: String, port: Int) throws -> [IPAddress] {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        // Only families this machine has an address for, so the first answer is one it can reach.
        hints.ai_flags = AI_ADDRCONFIG
        #if canImport(Darwin)
        hints.ai_socktype = SOCK_STREAM
        hints.ai_protocol = IPPROTO_TCP
        #else
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_protocol = Int32(IPPROTO_TCP)
        #endif
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0 else {
            throw HostResolutionError(host: host, reason: String(cString: gai_strerror(status)))
        }
        defer { freeaddrinfo(list) }
        var found: [IPAddress] = []
        var entry = list
        while let info = entry?.pointee {
            entry = info.ai_next
            guard let address = info.ai_addr else { continue }
            var bytes: [UInt8]?
            switch info.ai_family {
            case AF_INET:
                bytes = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { pointer in
                    withUnsafeBytes(of: pointer.pointee.sin_addr) { Array($0) }
                }
            case AF_INET6:
                bytes = address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { pointer in
                    withUnsafeBytes(of: pointer.pointee.sin6_addr) { Array($0) }
                }
            default:
                break
            }
            if let bytes, let ip = IPAddress(bytes: bytes), !found.contains(ip) { found.append(ip) }
        }
        return found
    }
}

/// A host name that could not be resolved, with the resolver's reason.
public struct HostResolutionError: Error, Sendable, CustomStringConvertible {
    /// The name looked up.
    public var host: String
    /// What the resolver said.
    public var reason: String

    /// An error for `host` with the resolver's `reason`.
    public init(host: String, reason: String) {
        self.host = host
        self.reason = reason
    }

    /// "cannot resolve HOST: REASON".
    public var description: String { "cannot resolve \(host): \(reason)" }
}
