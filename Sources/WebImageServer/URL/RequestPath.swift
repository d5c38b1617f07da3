/// A request target split as imgproxy splits it: the query dropped, the first segment taken as
/// the signature, and the rest (the signed path) repaired where proxies are known to mangle it.
struct RequestPath: Sendable, Equatable {
    /// The signature segment, as sent.
    let signature: Substring
    /// Everything after the signature segment, from its `/`, without the query: the signed path.
    let path: String

    /// Splits a raw (not percent-decoded) request target such as `/sig/rs:fit:300:300/plain/…?x`.
    init(_ target: String) throws(ImageURLError) {
        let withoutQuery = target.prefix { $0 != "?" }
        guard withoutQuery.first == "/" else {
            throw .invalidURL("The URL path must start with \"/\": /SIGNATURE/OPTIONS/SOURCE.")
        }
        let afterSlash = withoutQuery.dropFirst()
        let signature = afterSlash.prefix { $0 != "/" }
        let rest = afterSlash.dropFirst(signature.count)
        guard !signature.isEmpty else { throw .invalidURL("The URL has no signature segment: /SIGNATURE/OPTIONS/SOURCE.") }
        guard rest.count > 1 else { throw .invalidURL("The URL has nothing after its signature: /SIGNATURE/OPTIONS/SOURCE.") }
        self.signature = signature
        path = Self.repaired(rest)
    }

    /// Undoes two manglings before the signature is checked, as imgproxy does: `%3A` for `:` in the
    /// options, and a plain source's `scheme://` collapsed to `scheme:/` (for `local:` into `local:///`).
    static func repaired(_ path: Substring) -> String {
        let options: Substring, plain: Substring?
        if let marker = path.range(of: "/plain/") {
            options = path[..<marker.lowerBound]
            plain = path[marker.upperBound...]
        } else {
            options = path
            plain = nil
        }
        var result = String(options).replacing("%3A", with: ":")
        guard let plain else { return result }
        result += "/plain/"
        let scheme = plain.prefix { $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) }
        let afterScheme = plain.dropFirst(scheme.count)
        if let first = scheme.first, first.isLetter, afterScheme.hasPrefix(":/"),
           let next = afterScheme.dropFirst(2).first, next != "/" {
            result += String(scheme) + (scheme == "local" ? ":///" : "://") + String(afterScheme.dropFirst(2))
        } else {
            result += String(plain)
        }
        return result
    }
}
