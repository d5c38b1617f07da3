import CXXHash
import Foundation

/// What the server knows of one cached source: which version of it the cached bytes are, the
/// validators to revalidate it with, and until when it is fresh. Results are cached under their
/// source's ``identity``, so a source that changed leaves every result made from it unreachable:
/// in memory, on disk and in the shared tier, on every instance that learns the new identity.
struct SourceRecord: Codable, Sendable, Equatable {
    /// The source's bytes digested (32 hex digits of XXH3's 128-bit hash): the same bytes, the same
    /// identity, whatever the origin's validators say.
    var identity: String
    /// The origin's `ETag`, sent back as `If-None-Match`.
    var etag: String?
    /// The origin's `Last-Modified`, sent back as `If-Modified-Since` and passed on with results.
    var lastModified: String?
    /// Seconds of freshness a revalidation that finds the source unchanged gives it again.
    var lifetime: Int
    /// Unix seconds until which the source is fresh.
    var freshUntil: Int64

    /// Whether the source is still fresh at `now` (unix seconds).
    func isFresh(at now: Int64) -> Bool { now < freshUntil }

    /// This record after a revalidation at `now` found the source unchanged, with `lifetime`
    /// (the origin's, when it said one) and the origin's validators where it sent them.
    func renewed(at now: Int64, lifetime: Int? = nil, etag: String? = nil, lastModified: String? = nil) -> SourceRecord {
        var renewed = self
        renewed.lifetime = lifetime ?? self.lifetime
        renewed.freshUntil = now + Int64(renewed.lifetime)
        renewed.etag = etag ?? self.etag
        renewed.lastModified = lastModified ?? self.lastModified
        return renewed
    }

    /// The identity of a source with these bytes. A hash that is not cryptographic is enough: an
    /// identity only tells apart versions of one source URL (result keys name the URL too), and
    /// whoever can make that URL's bytes collide serves what they like there anyway. XXH3 digests
    /// a 4 MB source in a fraction of a millisecond, where SHA-256 took about 10 ms of a request's CPU.
    static func identity(of data: Data) -> String {
        let hash = data.withUnsafeBytes { XXH3_128bits($0.baseAddress, $0.count) }
        return hex(hash.high64) + hex(hash.low64)
    }

    /// `value` as 16 lower-case hex digits.
    private static func hex(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
