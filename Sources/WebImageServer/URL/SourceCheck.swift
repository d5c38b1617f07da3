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
    /// Whether `local:` sources are read (a root directory is set).
    let allowsLocalSources: Bool
    /// Where `s3:` sources are fetched from; nil refuses them.
    let s3: S3Configuration?

    /// The check for `allowedSources` (prefixes) and the downloader's `addressPolicy`; `local:`
    /// sources pass only with `allowsLocalSources`.
    init(allowedSources: [String], addressPolicy: AddressPolicy?,
         allowsLocalSources: Bool = false, s3: S3Configuration? = nil) throws(URLConfigurationError) {
        do {
            allowList = allowedSources.isEmpty ? nil : try SourceAllowList(allowedSources)
        } catch {
            throw URLConfigurationError("--allow-source: \(error.message)")
        }
        self.addressPolicy = addressPolicy
        self.allowsLocalSources = allowsLocalSources
        self.s3 = s3
    }

    /// The source URL if this server may fetch or serve it; else a 400 (not a valid http(s) or
    /// `local:///path` URL) or a 403 (outside the allow-list, an address the guard refuses, a
    /// `local:` source without a root or with a `..` segment).
    func checked(_ source: String) throws(ServerError) -> URL {
        if source.prefix(6).lowercased() == "local:" { return try checkedLocal(source) }
        if source.prefix(3).lowercased() == "s3:" { return try checkedS3(source) }
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

    /// A `local:///path` source: refused without a root (403), malformed (400) or with a `..`
    /// segment in any spelling (403). Where its real path leads is checked when it is read.
    private func checkedLocal(_ source: String) throws(ServerError) -> URL {
        guard allowsLocalSources else {
            throw ServerError(status: 403, name: "source_not_allowed",
                              message: "The source \(source) is a local file, and this server reads none (--local-filesystem-root is not set).")
        }
        guard let url = URL(string: source) else {
            throw ServerError.badRequest("invalid_source", "The source \"\(source)\" is not a valid local:///path URL.")
        }
        do {
            try LocalSourceLoader.check(url)
        } catch {
            if error.code == .sourceNotAllowed {
                throw ServerError(status: 403, name: "source_not_allowed",
                                  message: "The source \(source) leaves the local root directory.", detail: error.message)
            }
            throw ServerError.badRequest("invalid_source", "The source \(source) cannot be read: \(error.message)")
        }
        return url
    }

    /// An `s3://bucket/key` source: refused without S3 settings (403), malformed (400), or when
    /// the guard refuses the endpoint's address literal or `localhost` name (403), so a source
    /// cached while the guard was off is not served once it is on.
    private func checkedS3(_ source: String) throws(ServerError) -> URL {
        guard let s3 else {
            throw ServerError(status: 403, name: "source_not_allowed",
                              message: "The source \(source) is in S3, and this server reads no S3 sources (--use-s3 is not set).")
        }
        guard let url = URL(string: source) else {
            throw ServerError.badRequest("invalid_source", "The source \"\(source)\" is not a valid s3://bucket/key URL.")
        }
        do {
            _ = try S3Location(url)
        } catch {
            throw ServerError.badRequest("invalid_source", "The source \(source) cannot be read: \(error.message)")
        }
        if let addressPolicy, let endpoint = s3.endpoint, let origin = try? URLOrigin(validating: endpoint),
           let refusal = Self.refusal(of: origin.host, by: addressPolicy) {
            throw ServerError(status: 403, name: "source_forbidden", message: ServerError.notPublicMessage(source),
                              detail: "the S3 endpoint: " + refusal)
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
