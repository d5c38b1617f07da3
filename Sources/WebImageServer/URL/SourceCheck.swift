import Foundation
import WebImage

/// Whether the server may fetch a source, or serve it from a cache it may have entered under other
/// settings (a source cached while `--allow-private-sources` was on, or before `--allow-source`
/// was set, is refused once they say so). Checked before any cache is read.
///
/// The downloader checks the same list and address policy again at every hop it connects to; this
/// check is what a cached source meets. A host name is not resolved here: what it points to is
/// checked when it is downloaded, so a source cached under a name that resolved to a private
/// address while the guard was off is refused only when that name is `localhost`.
struct SourceCheck: Sendable {
    /// The `--allow-source` prefixes; nil admits every source.
    let allowList: SourceAllowList?
    /// The safe-fetch guard's policy; nil when private sources are allowed.
    let addressPolicy: AddressPolicy?

    /// The check for `allowedSources` (prefixes) and the downloader's `addressPolicy`.
    init(allowedSources: [String], addressPolicy: AddressPolicy?) throws(URLConfigurationError) {
        do {
            allowList = allowedSources.isEmpty ? nil : try SourceAllowList(allowedSources)
        } catch {
            throw URLConfigurationError("--allow-source: \(error.message)")
        }
        self.addressPolicy = addressPolicy
    }

    /// The source URL if this server may fetch or serve it; else a 400 (not a valid http(s) URL)
    /// or a 403 (outside the allow-list, or an address the guard refuses).
    func checked(_ source: String) throws(ServerError) -> URL {
        guard let url = URL(string: source), let scheme = url.scheme?.lowercased(),
              scheme == "http" || scheme == "https", url.host?.isEmpty == false else {
            throw ServerError.badRequest("invalid_source", "The source \"\(source)\" is not an http(s) URL.")
        }
        let origin: URLOrigin
        do {
            origin = try URLOrigin(validating: url)
        } catch {
            // The URL check's own words: they describe the URL the client sent (scheme, host, port).
            throw ServerError.badRequest("invalid_source", "The source \(source) cannot be requested: \(error.message)")
        }
        if let allowList, !allowList.admits(url) {
            throw ServerError(status: 403, name: "source_not_allowed",
                              message: "The source \(source) is not under an allowed source (--allow-source).")
        }
        if let addressPolicy, let refusal = Self.refusal(of: origin.host, by: addressPolicy) {
            throw ServerError(status: 403, name: "source_forbidden",
                              message: ServerError.notPublicMessage(source),
                              detail: refusal)
        }
        return url
    }

    /// Why `host` is refused without a lookup: an address literal in a restricted range, or a
    /// `localhost` name.
    private static func refusal(of host: String, by policy: AddressPolicy) -> String? {
        guard !policy.allowsHost(host) else { return nil }
        if let address = IPAddress(host) {
            return policy.refusal(for: address).map { "\(address) is in \($0)" }
        }
        return host == "localhost" || host.hasSuffix(".localhost") ? "\(host) is a loopback name" : nil
    }
}
