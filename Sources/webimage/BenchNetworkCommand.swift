import ArgumentParser
import Foundation
import Synchronization
import WebImage

/// `webimage bench-network`: what the network features cost and save, on an in-process loopback
/// origin. Resume: how much of a cut body is sent again. Per-host limit: each host's peak in
/// flight and the throughput beside the same run without the limit. Guard: the time per pooled
/// load with the safe-fetch guard on beside off. Rounds interleaved.
struct BenchNetworkCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench-network",
        abstract: "Measure resumed downloads, the per-host limit and the safe-fetch guard against an in-process loopback origin."
    )

    @Option(help: "Size of the large image in MB (resume).")
    var bigMegabytes = 20
    @Option(help: "Where the first transfer of the large image is cut (fraction of its size).")
    var cut = 0.9
    @Option(help: "Small images loaded per round (per-host limit).")
    var urls = 1000
    @Option(help: "Loopback hosts the small images are spread over (127.0.0.1, 127.0.0.2, …).")
    var hosts = 4
    @Option(help: "The per-host limit under test; the global limit is hosts × this.")
    var maxPerHost = 2
    @Option(help: "Rounds of the per-host comparison (limited and unlimited interleaved).")
    var rounds = 5
    @Option(help: "Rounds of the guard comparison (on and off interleaved), each of 100 sequential loads.")
    var guardRounds = 20
    @Flag(help: "Print one JSON object instead of text.")
    var json = false

    func validate() throws {
        guard bigMegabytes >= 1, cut > 0, cut < 1 else { throw ValidationError("--big-megabytes ≥ 1 and 0 < --cut < 1.") }
        guard urls >= 1, (1...254).contains(hosts), maxPerHost >= 1, rounds >= 1, guardRounds >= 1 else {
            throw ValidationError("--urls, --max-per-host, --rounds and --guard-rounds must be ≥ 1, --hosts 1…254.")
        }
    }

    func run() async throws {
        let small = try NetBenchImages.small()
        let big = try NetBenchImages.large(bytes: bigMegabytes << 20)
        let origin = try await NetBenchOrigin.start(hosts: hosts, small: small, big: big)
        let resume = try await measureResume(origin, size: big.count)
        let perHost = try await measurePerHost(origin)
        let guarded = try await measureGuard(origin)
        await origin.stop()
        if json {
            var line = JSONLine()
            line.add("resume", raw: resume.json.text)
            line.add("perHost", raw: perHost.json.text)
            line.add("guard", raw: guarded.json.text)
            print(line.text)
        } else {
            print(resume.text)
            print(perHost.text)
            print(guarded.text)
        }
    }

    private func measureResume(_ origin: NetBenchOrigin, size: Int) async throws -> ResumeReport {
        origin.resetStats()
        var config = DownloaderConfig()
        config.retryStrategy = RetryStrategy(maxRetries: 1, maxDelay: 0)
        config.resumableDataBudget = max(config.resumableDataBudget, size)
        config.maximumResponseSize = max(config.maximumResponseSize, size * 2)
        let downloader = ImageDownloader(config: config)
        defer { Task { try? await downloader.shutdown() } }
        let (result, metrics) = await withCheckedContinuation { (done: CheckedContinuation<(ImageLoadResult, DownloadMetrics?), Never>) in
            let token = Mutex<ImageDownloadToken?>(nil)
            let made = downloader.requestImage(with: origin.url(host: 1, "/big?cut=\(cut)"), options: [], context: .none,
                                               progress: nil) { result in
                guard result.isFinished else { return }
                done.resume(returning: (result, token.withLock { $0?.metrics }))
            }
            token.withLock { $0 = made as? ImageDownloadToken }
        }
        let sent = origin.stats.withLock { $0.bytesSent }
        let cutBytes = Int(Double(size) * cut)
        return ResumeReport(size: size, cutAt: cutBytes, sentAgain: sent - cutBytes,
                            resumedBytes: Int(metrics?.resumedBytes ?? 0),
                            ok: result.image != nil)
    }

    private func measurePerHost(_ origin: NetBenchOrigin) async throws -> PerHostReport {
        var report = PerHostReport(urls: urls, hosts: hosts, maxPerHost: maxPerHost)
        for round in 0..<rounds {
            // Alternate which run goes first, so a drift in machine speed hits both alike.
            let order = round.isMultiple(of: 2) ? [true, false] : [false, true]
            for limited in order {
                origin.resetStats()
                let (seconds, peak) = try await loadAll(origin, round: round,
                                                        perHost: limited ? maxPerHost : hosts * maxPerHost)
                report.add(limited: limited, imagesPerSecond: Double(urls) / seconds, peak: peak)
            }
        }
        return report
    }

    /// Sequential small-image loads on one pooled connection with the safe-fetch guard off and on
    /// (a host name pinned to 127.0.0.1, allowed by the policy), rounds interleaved.
    private func measureGuard(_ origin: NetBenchOrigin) async throws -> GuardReport {
        var plain = DownloaderConfig()
        plain.maxConcurrentDownloads = 1
        var guarded = plain
        guarded.addressPolicy = AddressPolicy(allowedNetworks: [IPNetwork("127.0.0.1/32")!])
        guarded.hostResolver = FixedLoopbackResolver()
        let off = ImageDownloader(config: plain), on = ImageDownloader(config: guarded)
        let plainURL = { (n: Int) in origin.url(host: 1, "/img/guard-off-\(n)") }
        let namedURL = { (n: Int) in URL(string: "http://images.bench:\(origin.port)/img/guard-on-\(n)")! }
        var report = GuardReport()
        var count = 0
        func perLoad(_ downloader: ImageDownloader, _ url: (Int) -> URL) async throws -> Double {
            let start = ContinuousClock.now
            for _ in 0..<100 {
                count += 1
                guard try await downloader.loadImage(url(count)).image != nil else {
                    throw ValidationError("a guard-bench load failed")
                }
            }
            let elapsed = ContinuousClock.now - start
            return (Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18) / 100
        }
        _ = try await perLoad(off, plainURL)  // warm-up: connections, pins
        _ = try await perLoad(on, namedURL)
        for round in 0..<guardRounds {
            if round.isMultiple(of: 2) {
                report.off.append(try await perLoad(off, plainURL))
                report.on.append(try await perLoad(on, namedURL))
            } else {
                report.on.append(try await perLoad(on, namedURL))
                report.off.append(try await perLoad(off, plainURL))
            }
        }
        try await off.shutdown()
        try await on.shutdown()
        return report
    }

    /// Loads `urls` small images spread over the hosts; returns the seconds it took and the most
    /// downloads one host had running at once (counted from each download's start, which its
    /// first progress call reports, to its result).
    private func loadAll(_ origin: NetBenchOrigin, round: Int, perHost: Int) async throws -> (Double, Int) {
        var config = DownloaderConfig()
        config.maxConcurrentDownloads = hosts * maxPerHost
        config.maxConcurrentDownloadsPerHost = perHost
        let downloader = ImageDownloader(config: config)
        // In blocks by host, as a page of one site's images would queue: without the per-host
        // limit the first host takes every slot; with it each host gets its share.
        let targets = (0..<urls).map { origin.url(host: $0 * hosts / urls + 1, "/img/\(round)-\($0)") }
        let running = HostCounters()
        let start = ContinuousClock.now
        let failures = await withTaskGroup(of: Bool.self) { group in
            for url in targets {
                group.addTask {
                    await withCheckedContinuation { (done: CheckedContinuation<Bool, Never>) in
                        downloader.requestImage(with: url, options: [], context: .none,
                                                progress: { received, expected, _ in
                                                    // The downloader's own count, read as this one starts.
                                                    guard received == 0, expected < 0 else { return }
                                                    running.record(downloader.runningDownloadCount(host: url))
                                                },
                                                completion: { result in
                                                    guard result.isFinished else { return }
                                                    done.resume(returning: result.image == nil)
                                                })
                    }
                }
            }
            return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        let elapsed = ContinuousClock.now - start
        try await downloader.shutdown()
        if failures > 0 { throw ValidationError("\(failures) of \(urls) loads failed.") }
        return (Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18, running.peak)
    }
}

/// The highest count of downloads running to one host seen at any download's start.
final class HostCounters: Sendable {
    private let highest = Mutex(0)

    func record(_ running: Int) { highest.withLock { $0 = max($0, running) } }

    var peak: Int { highest.withLock { $0 } }
}

/// What the resume run measured.
struct ResumeReport {
    let size: Int
    let cutAt: Int
    let sentAgain: Int
    let resumedBytes: Int
    let ok: Bool

    var sentAgainShare: Double { Double(sentAgain) / Double(size) }

    var json: JSONLine {
        var line = JSONLine()
        line.add("size", size)
        line.add("cutAt", cutAt)
        line.add("sentAgain", sentAgain)
        line.add("sentAgainShare", sentAgainShare)
        line.add("resumedBytes", resumedBytes)
        line.add("ok", ok)
        return line
    }

    var text: String {
        String(format: "resume: %.1f MB cut at %.0f%%; %.2f MB kept and resumed; sent again %.2f MB = %.1f%% of the body (%@)",
               Double(size) / 1e6, Double(cutAt) / Double(size) * 100, Double(resumedBytes) / 1e6,
               Double(sentAgain) / 1e6, sentAgainShare * 100, ok ? "image decoded" : "FAILED")
    }
}

/// What the per-host runs measured: medians over the rounds.
struct PerHostReport {
    let urls: Int
    let hosts: Int
    let maxPerHost: Int
    private var limited: [(rate: Double, peak: Int)] = []
    private var unlimited: [(rate: Double, peak: Int)] = []

    init(urls: Int, hosts: Int, maxPerHost: Int) {
        self.urls = urls
        self.hosts = hosts
        self.maxPerHost = maxPerHost
    }

    mutating func add(limited isLimited: Bool, imagesPerSecond: Double, peak: Int) {
        if isLimited { limited.append((imagesPerSecond, peak)) } else { unlimited.append((imagesPerSecond, peak)) }
    }

    private static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        return sorted.isEmpty ? 0 : sorted[sorted.count / 2]
    }

    var limitedRate: Double { Self.median(limited.map(\.rate)) }
    var unlimitedRate: Double { Self.median(unlimited.map(\.rate)) }
    var limitedPeak: Int { limited.map(\.peak).max() ?? 0 }
    var unlimitedPeak: Int { unlimited.map(\.peak).max() ?? 0 }

    var json: JSONLine {
        var line = JSONLine()
        line.add("urls", urls)
        line.add("hosts", hosts)
        line.add("maxPerHost", maxPerHost)
        line.add("limitedImagesPerSecond", limitedRate)
        line.add("unlimitedImagesPerSecond", unlimitedRate)
        line.add("ratio", limitedRate / max(unlimitedRate, 1e-9))
        line.add("limitedPeakPerHost", limitedPeak)
        line.add("unlimitedPeakPerHost", unlimitedPeak)
        line.add("rounds", limited.count)
        return line
    }

    var text: String {
        String(format: "per-host: %d URLs over %d hosts, global limit %d; --max-per-host %d: %.0f images/s, peak %d per host; without: %.0f images/s, peak %d per host; ratio %.2f (median of %d rounds)",
               urls, hosts, hosts * maxPerHost, maxPerHost, limitedRate, limitedPeak, unlimitedRate, unlimitedPeak,
               limitedRate / max(unlimitedRate, 1e-9), limited.count)
    }
}

/// Resolves every name to 127.0.0.1: the guard bench's stand-in for a name server.
struct FixedLoopbackResolver: HostResolving {
    func addresses(of host: String, port: Int) async throws -> [IPAddress] { [IPAddress("127.0.0.1")!] }
}

/// Seconds per load with the guard off and on, one value per round.
struct GuardReport {
    var off: [Double] = []
    var on: [Double] = []

    private static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        return sorted.isEmpty ? 0 : sorted[sorted.count / 2]
    }

    var overhead: Double { Self.median(on) / max(Self.median(off), 1e-12) - 1 }

    var json: JSONLine {
        var line = JSONLine()
        line.add("offMicrosecondsPerLoad", Self.median(off) * 1e6)
        line.add("onMicrosecondsPerLoad", Self.median(on) * 1e6)
        line.add("overhead", overhead)
        line.add("rounds", off.count)
        return line
    }

    var text: String {
        String(format: "guard: sequential pooled small-image loads %.0f µs off, %.0f µs on (a pinned name): %+.1f%% (median of %d rounds of 100)",
               Self.median(off) * 1e6, Self.median(on) * 1e6, overhead * 100, off.count)
    }
}

/// The images the network bench serves, encoded once.
enum NetBenchImages {
    /// A 64×64 PNG.
    static func small() throws -> [UInt8] {
        let bitmap = Bitmap(width: 64, height: 64) { out in
            for i in stride(from: 0, to: out.count, by: 4) {
                out[i] = UInt8(i % 251); out[i + 1] = UInt8(i / 64 % 256); out[i + 2] = 90; out[i + 3] = 255
            }
        }
        return [UInt8](try CodersManager.shared.encode(Image(bitmap: bitmap), as: .png, options: .default))
    }

    /// A PNG of noise of about `bytes` bytes (noise does not compress).
    static func large(bytes: Int) throws -> [UInt8] {
        // Three noisy channels and opaque alpha: a little over 3 bytes a pixel once encoded.
        let side = max(16, Int((Double(bytes) / 3.05).squareRoot()))
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        let bitmap = Bitmap(width: side, height: side) { out in
            for i in 0..<out.count {
                state = state &* 6364136223846793005 &+ 1442695040888963407
                out[i] = i % 4 == 3 ? 255 : UInt8(truncatingIfNeeded: state >> 33)
            }
        }
        return [UInt8](try CodersManager.shared.encode(Image(bitmap: bitmap), as: .png, options: .default))
    }
}
