import Foundation
import Logging
import NIOCore
import WebImage
import WebImageRedis

/// `webimage serve`'s shared cache tier: one Redis client, source bytes in the `sources`
/// namespace (a tier of the image manager's `CachesManager`: local disk → Redis → origin) and
/// encoded results in `results` (after the local result caches, with a lease so one instance
/// makes a new result while the others wait for it).
struct SharedTier: Sendable {
    let client: RedisClient
    let sources: RedisCache
    let results: RedisStore
    let leaseWaitMilliseconds: Int
    /// The server's admission: a request waiting for another instance's lease is admitted, so
    /// such waits count against `--max-queue` like the work they stand for.
    let limiter: WorkLimiter

    init(configuration: RedisConfiguration, ttl: Int, leaseWait: TimeInterval, limiter: WorkLimiter, logger: Logger) {
        self.limiter = limiter
        client = RedisClient(configuration: configuration, logger: logger)
        sources = RedisCache(client: client, namespace: "sources", ttl: ttl)
        results = RedisStore(client: client, namespace: "results", defaultTTL: ttl)
        leaseWaitMilliseconds = max(0, Int(leaseWait * 1000))
    }

    /// The manager's cache: `local` first, then Redis; a Redis hit is copied to `local`, and
    /// downloads are written to both (Redis in the background).
    func tiered(over local: ImageCache) -> CachesManager {
        let caches = CachesManager(caches: [sources, local])
        caches.storePolicy = .concurrent
        caches.fillsHigherPriorityCaches = true
        return caches
    }

    /// The encoded result under `key` from Redis; else, when another instance is making it, that
    /// instance's result (waited for, bounded, as an admitted request); else `make`'s, written to
    /// Redis without waiting under the key `make` gives (its result's key, which differs from
    /// `key` when its source turned out to be another version), in the group of results made from
    /// `source` (dropped together when it changes). Throws ``ServerError/queueFull`` when a miss
    /// finds no admission.
    func result(forKey key: String, madeFrom source: String,
                make: () async throws -> (Data, key: String)) async throws -> (Data, shared: Bool) {
        if let envelope = await results.entry(forKey: key) { return (envelope.payload, true) }
        return try await limiter.admit { try await resultAfterMiss(forKey: key, madeFrom: source, make: make) }
    }

    private func resultAfterMiss(forKey key: String, madeFrom source: String,
                                 make: () async throws -> (Data, key: String)) async throws -> (Data, shared: Bool) {
        switch await results.leaseOrValue(forKey: key, leaseMilliseconds: max(leaseWaitMilliseconds * 2, 1000),
                                          waitMilliseconds: leaseWaitMilliseconds) {
        case .found(let envelope):
            return (envelope.payload, true)
        case .lead(let lease):
            do {
                let (data, storeKey) = try await make()
                results.store(data, forKey: storeKey, inGroup: source)
                results.release(lease)
                return (data, false)
            } catch {
                results.release(lease)
                throw error
            }
        case .alone:
            let (data, storeKey) = try await make()
            results.store(data, forKey: storeKey, inGroup: source)
            return (data, false)
        }
    }

    /// Runs `fetch` (a fetch of `source` through the image manager, whose cache has the Redis tier)
    /// once the source is in Redis, or under this instance's lease on it, or after waiting for
    /// another instance's download in vain, so a new source used by several results at once on
    /// several instances is downloaded about once. The manager queues its write of the source's
    /// bytes to Redis before it answers, on the key's connection, so the lease is released after it.
    /// The whole of it runs as an admitted request (``ServerError/queueFull`` without admission).
    func withSource<T: Sendable>(_ source: URL, fetch: () async throws -> T) async throws -> T {
        try await limiter.admit {
            switch await sources.store.valueOrLease(forKey: source.absoluteString,
                                                     leaseMilliseconds: max(leaseWaitMilliseconds * 2, 1000),
                                                     waitMilliseconds: leaseWaitMilliseconds) {
            case .found, .alone:
                return try await fetch()
            case .lead(let lease):
                defer { sources.store.release(lease) }
                return try await fetch()
            }
        }
    }

    /// What `/health` says about the tier.
    var health: [String: Any] {
        let statistics = client.statistics
        return [
            "enabled": true,
            "address": client.configuration.redactedDescription,
            "breaker": client.breaker.state.rawValue,
            "hits": statistics.hits,
            "misses": statistics.misses,
            "corrupt": statistics.corrupt,
            "errors": statistics.errors,
            "skipped": statistics.skipped,
            "queue_timeouts": statistics.queueTimeouts,
            "writes": statistics.writes,
            "leases_taken": statistics.leasesTaken,
            "leases_waited": statistics.leasesWaited,
            "lease_wait_hits": statistics.leaseWaitHits,
            "breaker_openings": statistics.breakerOpenings,
        ]
    }
}
