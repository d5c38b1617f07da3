import WebImageCodecs
import Foundation

/// The errors of the safe-fetch guard's checks, with messages that name the hop, the host and the
/// address that decided.
enum GuardRefusal {
    /// `address` (of `answer`, the whole lookup, when `host` is a name) is in the restricted `range`.
    static func forbidden(host: String, port: Int, url: URL, address: IPAddress, range: RestrictedRange,
                          answer: [IPAddress]?) -> WebImageError {
        let found = answer.map { " it resolved to \($0.map(\.description).joined(separator: ", ")), and" } ?? ""
        let target = IPAddress(host)?.isIPv4 == false ? "[\(host)]:\(port)" : "\(host):\(port)"
        return WebImageError(.forbiddenAddress,
            "The safe-fetch guard refused to connect to \(target) for \(url.absoluteString):\(found) \(address) is in "
            + "\(range), not a public address. If this server may reach it, add the network to "
            + "AddressPolicy.allowedNetworks or the host to allowedHosts.")
    }

    /// `host` could not be resolved: a connection failure, as without the guard.
    static func unresolvable(host: String, reason: String) -> WebImageError {
        WebImageError(.connectionFailed, "The host name \"\(host)\" could not be resolved (DNS): \(reason).")
    }
}
