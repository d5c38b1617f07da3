import Foundation
import WebImage

/// How long sources stay fresh and how long clients may keep results: an origin's `max-age` or
/// `Expires` (else `--source-ttl`) bounded by the floor and the ceiling; a result's `max-age` is the
/// freshness its source has left, bounded the same way, never over `--ttl` nor past the URL's expiry.
struct FreshnessPolicy: Sendable {
    let sourceTTL: Int
    let floor: Int
    let ceiling: Int
    let ttl: Int

    init(configuration: ServerConfiguration) {
        sourceTTL = configuration.sourceTTL
        floor = configuration.freshnessFloor
        ceiling = configuration.freshnessCeiling
        ttl = configuration.ttl
    }

    /// Seconds a source answered with `headers` stays fresh: its origin's freshness left (lifetime
    /// less its age on arrival) when the origin said one (`max-age`, `Expires`, `no-cache`), else
    /// ``sourceTTL``, within the floor and the ceiling.
    func lifetime(headers: [HTTPHeaderField]?) -> Int {
        var seconds = Double(sourceTTL)
        if let headers, let freshness = HTTPFreshness(headers: headers, receivedAt: Date()),
           freshness.maxAge != nil || freshness.expires != nil || freshness.noCache {
            seconds = freshness.lifetime - freshness.currentAge(at: freshness.receivedAt)
        }
        return bounded(seconds)
    }

    /// A record of a source with `data`, answered with `headers` (nil: read from a cache or a
    /// file), at `now`. A source whose validators came from a cache, not a response, counts as
    /// stale (`stale`), so it is revalidated before it is trusted for long.
    func record(for data: Data, headers: [HTTPHeaderField]?, validators: HTTPValidators?, now: Int64,
                stale: Bool = false) -> SourceRecord {
        let lifetime = lifetime(headers: headers)
        return SourceRecord(identity: SourceRecord.identity(of: data),
                            etag: headers?[header: "ETag"] ?? validators?.etag,
                            lastModified: headers?[header: "Last-Modified"] ?? validators?.lastModified,
                            lifetime: lifetime, freshUntil: stale ? now : now + Int64(lifetime))
    }

    /// The `Cache-Control` of a result whose source is fresh until `freshUntil` (nil: not known),
    /// whose URL expires at `expires` (nil or ≤ 0: never), answered at `now`.
    func cacheControl(freshUntil: Int64?, expires: Int64?, now: Int64) -> String {
        var maxAge = Int64(ttl)
        if let freshUntil, maxAge > 0 {
            let left = max(Int64(floor), min(Int64(ceiling), freshUntil - now))
            maxAge = min(maxAge, left)
        }
        if let expires, expires > 0 { maxAge = max(0, min(maxAge, expires - now)) }
        return maxAge > 0 ? "public, max-age=\(maxAge)" : "no-cache"
    }

    private func bounded(_ seconds: Double) -> Int {
        guard seconds.isFinite else { return floor }
        return Int(max(Double(floor), min(Double(ceiling), seconds)))
    }
}
