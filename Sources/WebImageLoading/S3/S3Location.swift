import WebImageCodecs
import Foundation

/// A bucket and an object key, from an `s3://bucket/key` URL.
///
/// The bucket is the URL's host: 1–255 ASCII letters, digits, `.`, `-` and `_` (S3's own rules
/// and older buckets' looser ones). The key is the URL's path after its first `/`, percent-decoded
/// once, 1–1024 bytes of UTF-8; the query and fragment are not part of it.
public struct S3Location: Sendable, Hashable {
    /// The bucket's name.
    public let bucket: String
    /// The object key (decoded).
    public let key: String

    /// The location `url` names, or ``WebImageError/Code/invalidURL`` saying what is wrong with it.
    public init(_ url: URL) throws(WebImageError) {
        guard url.scheme?.lowercased() == "s3" else {
            throw WebImageError(.invalidURL, "Not an s3:// URL.", url: url)
        }
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false),
              let bucket = components.host, !bucket.isEmpty else {
            throw WebImageError(.invalidURL, "An s3 URL names its bucket as its host: s3://bucket/key.", url: url)
        }
        guard bucket.utf8.count <= 255, components.port == nil, components.user == nil,
              bucket.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "-._".contains($0)) }) else {
            throw WebImageError(.invalidURL, "The bucket name \"\(bucket.prefix(64))\" is not valid.", url: url)
        }
        let path = components.percentEncodedPath
        guard path.hasPrefix("/"), let key = path.dropFirst().removingPercentEncoding, !key.isEmpty else {
            throw WebImageError(.invalidURL, "The s3 URL names no object key (or a malformed %-escape in it).", url: url)
        }
        guard key.utf8.count <= 1024, !key.utf8.contains(0) else {
            throw WebImageError(.invalidURL, "The object key is longer than 1024 bytes or holds a NUL byte.", url: url)
        }
        self.bucket = bucket
        self.key = key
    }

    /// The key as a URL path: every byte outside `A–Z a–z 0–9 - . _ ~ /` percent-encoded.
    var encodedKey: String {
        key.split(separator: "/", omittingEmptySubsequences: false)
            .map { AWSSigner.encode(Array($0.utf8)) }.joined(separator: "/")
    }
}
