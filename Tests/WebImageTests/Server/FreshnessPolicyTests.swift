import Foundation
import Testing
@testable import WebImage
@testable import WebImageServer

/// How long a source stays fresh (the origin's word within the floor and the ceiling, else
/// `--source-ttl`) and the max-age of its results.
@Suite("Server: freshness policy")
struct FreshnessPolicyTests {
    let policy: FreshnessPolicy = {
        var configuration = ServerConfiguration()
        configuration.sourceTTL = 3600
        configuration.freshnessFloor = 60
        configuration.freshnessCeiling = 86_400
        configuration.ttl = 31_536_000
        return FreshnessPolicy(configuration: configuration)
    }()

    private func headers(_ pairs: [(String, String)]) -> [HTTPHeaderField] {
        pairs.map { HTTPHeaderField(name: $0.0, value: $0.1) }
    }

    @Test func anOriginsMaxAgeIsHonouredWithinTheFloorAndTheCeiling() {
        #expect(policy.lifetime(headers: headers([("Cache-Control", "public, max-age=600")])) == 600)
        #expect(policy.lifetime(headers: headers([("Cache-Control", "max-age=31536000")])) == 86_400)
        #expect(policy.lifetime(headers: headers([("Cache-Control", "max-age=0")])) == 60)
        #expect(policy.lifetime(headers: headers([("Cache-Control", "no-cache")])) == 60)
        #expect(policy.lifetime(headers: headers([("Cache-Control", "max-age=600"), ("Age", "100")])) == 500)
        #expect(policy.lifetime(headers: headers([("Cache-Control", "max-age=99999999999999999999999")])) == 86_400)
    }

    @Test func withoutALifetimeFromTheOriginASourceTakesTheSourceTTL() {
        #expect(policy.lifetime(headers: nil) == 3600)
        #expect(policy.lifetime(headers: []) == 3600)
        #expect(policy.lifetime(headers: headers([("Cache-Control", "public")])) == 3600)
        #expect(policy.lifetime(headers: headers([("ETag", "\"x\"")])) == 3600)
    }

    @Test func aRecordKeepsTheValidatorsAndBytesFromACacheAreStale() {
        let data = Data([1, 2, 3])
        let downloaded = policy.record(for: data, headers: headers([("ETag", "\"e\""), ("Last-Modified", "Mon, 01 Jan 2024 00:00:00 GMT")]),
                                       validators: nil, now: 1000)
        #expect(downloaded.identity == SourceRecord.identity(of: data))
        #expect(downloaded.etag == "\"e\"" && downloaded.lastModified == "Mon, 01 Jan 2024 00:00:00 GMT")
        #expect(downloaded.freshUntil == 4600 && downloaded.isFresh(at: 4599) && !downloaded.isFresh(at: 4600))
        let cached = policy.record(for: data, headers: nil, validators: HTTPValidators(etag: "\"c\""), now: 1000, stale: true)
        #expect(cached.etag == "\"c\"")
        #expect(!cached.isFresh(at: 1000))
        #expect(cached.renewed(at: 2000).freshUntil == 5600)
    }

    @Test func aResultsMaxAgeIsItsSourcesFreshnessLeftWithinTheBoundsTheTTLAndTheURLsExpiry() {
        #expect(policy.cacheControl(freshUntil: 2000, expires: nil, now: 1000) == "public, max-age=1000")
        #expect(policy.cacheControl(freshUntil: 1010, expires: nil, now: 1000) == "public, max-age=60", "the floor")
        #expect(policy.cacheControl(freshUntil: 500, expires: nil, now: 1000) == "public, max-age=60", "stale: the floor")
        #expect(policy.cacheControl(freshUntil: 1_000_000, expires: nil, now: 1000) == "public, max-age=86400")
        #expect(policy.cacheControl(freshUntil: 2000, expires: 1030, now: 1000) == "public, max-age=30")
        #expect(policy.cacheControl(freshUntil: 2000, expires: 1000, now: 1000) == "no-cache")
        var noTTL = ServerConfiguration()
        noTTL.ttl = 0
        #expect(FreshnessPolicy(configuration: noTTL).cacheControl(freshUntil: 2000, expires: nil, now: 1000) == "no-cache")
        var shortTTL = ServerConfiguration()
        shortTTL.ttl = 30
        #expect(FreshnessPolicy(configuration: shortTTL).cacheControl(freshUntil: 99_000, expires: nil, now: 1000) == "public, max-age=30")
    }
}
