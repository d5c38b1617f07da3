import ArgumentParser
import Foundation
import WebImageRedis
#if canImport(Glibc)
import Glibc
#endif

/// `webimage shared-cache-bench`: what the shared cache tier costs a request — a hit, a miss, and
/// an operation skipped while the breaker is open (Redis down) — measured through the library's
/// own client, one operation at a time. Prints one JSON line.
struct SharedCacheBenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "shared-cache-bench",
        abstract: "Measure the shared cache tier's hit, miss and breaker-open latency against a Redis (one JSON line)."
    )

    @Option(help: "The Redis to measure: redis://[user:password@]host:port/db.")
    var redis: String

    @Option(help: "Operations per measurement.")
    var count = 2000

    @Option(help: "Bytes of the value read on hits (an encoded result's size).")
    var bytes = 20_000

    func validate() throws {
        guard count > 0, bytes >= 0 else { throw ValidationError("--count must be positive and --bytes not negative.") }
        do { _ = try RedisConfiguration(url: redis) } catch { throw ValidationError("--redis: \(error)") }
    }

    func run() async throws {
        let configuration = try RedisConfiguration(url: redis)
        let client = RedisClient(configuration: configuration)
        defer { client.close() }
        let store = RedisStore(client: client, namespace: "bench", defaultTTL: 300)
        let value = Data((0..<bytes).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        let stored = AsyncStream<Bool>.makeStream()
        store.store(value, forKey: "hit", ttl: 300) { ok in stored.continuation.yield(ok); stored.continuation.finish() }
        for await ok in stored.stream where !ok { throw ValidationError("Redis at \(configuration.redactedDescription) refused the write.") }
        // Warm the connections.
        for _ in 0..<50 { _ = await store.entry(forKey: "hit") }
        let hits = await measure { _ = await store.entry(forKey: "hit") }
        let misses = await measure { _ = await store.entry(forKey: "missing") }
        await store.removeAll()

        // Redis down: a port nothing listens on. The first failures open the breaker; then measure.
        var down = RedisConfiguration(host: "127.0.0.1", port: try Self.unusedPort())
        down.connections = configuration.connections
        let downClient = RedisClient(configuration: down)
        defer { downClient.close() }
        let downStore = RedisStore(client: downClient, namespace: "bench")
        let opening = ContinuousClock.now
        while downClient.breaker.state == .closed { _ = await downStore.entry(forKey: "hit") }
        let toOpen = ContinuousClock.now - opening
        let skipped = await measure { _ = await downStore.entry(forKey: "hit") }

        let report: [String: Any] = [
            "redis": configuration.redactedDescription, "bytes": bytes, "count": count,
            "hit_ms": hits.summary, "miss_ms": misses.summary, "breaker_open_ms": skipped.summary,
            "until_breaker_open_ms": Self.milliseconds(toOpen),
        ]
        let json = try JSONSerialization.data(withJSONObject: report, options: [.sortedKeys])
        print(String(decoding: json, as: UTF8.self))
    }

    private func measure(_ operation: () async -> Void) async -> Latencies {
        var samples: [Double] = []
        samples.reserveCapacity(count)
        for _ in 0..<count {
            let start = ContinuousClock.now
            await operation()
            samples.append(Self.milliseconds(ContinuousClock.now - start))
        }
        return Latencies(samples: samples.sorted())
    }

    static func milliseconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
    }

    /// A loopback port nothing listens on (bound to port 0, read back, closed).
    static func unusedPort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ok = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        guard fd >= 0, ok else { throw ValidationError("No free loopback port.") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}

/// Sorted latency samples in milliseconds.
private struct Latencies {
    let samples: [Double]

    func percentile(_ p: Double) -> Double {
        samples[min(samples.count - 1, Int((Double(samples.count) * p).rounded(.up)) - 1)]
    }

    var summary: [String: Double] {
        ["p50": percentile(0.50), "p95": percentile(0.95), "p99": percentile(0.99), "max": samples.last ?? 0]
    }
}
