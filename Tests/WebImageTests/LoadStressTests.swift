import Foundation
import Synchronization
import Testing
@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageLoading

/// Load, cancel and memory stress through the manager. CI runs a reduced size; `make stress`
/// (WEBIMAGE_STRESS=full) runs the full one: 10,000 loads over 500 URLs, and 2,000 distinct
/// 1000×1000 images under a 100 MB memory-cost limit, printing peak RSS.
@Suite("Image manager under stress", .serialized)
struct LoadStressTests {
    static let full = ProcessInfo.processInfo.environment["WEBIMAGE_STRESS"] == "full"

    @Test func randomCancellationFromSeveralThreadsCompletesEveryLoadOnce() async throws {
        let loads = Self.full ? 10_000 : 2_000
        let urlCount = Self.full ? 500 : 100
        try await withManager { h in
            let picture = ManagerFixtures.png(16, 16)
            for index in 0..<urlCount {
                var route = TestOriginRoute.data(picture, contentType: "image/png")
                route.delay = .milliseconds(index % 7 == 0 ? 20 : 0)
                h.origin.setRoute("/s/\(index).png", route)
            }
            let urls = (0..<urlCount).map { h.origin.url("/s/\($0).png") }
            let counters = Completions(count: loads)
            DispatchQueue.concurrentPerform(iterations: 4) { thread in
                var random = SystemRandomNumberGenerator()
                for load in stride(from: thread, to: loads, by: 4) {
                    let options: WebImageOptions = load % 2 == 0 ? [.fromLoaderOnly] : []
                    let operation = h.manager.loadImage(with: urls[Int.random(in: 0..<urlCount, using: &random)],
                                                        options: options) { counters.add(load, $0) }
                    switch Int.random(in: 0..<10, using: &random) {
                    case 0..<2:
                        counters.markCancelled(load)
                        operation.cancel()
                    case 2..<4:
                        counters.markCancelled(load)
                        DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(Int.random(in: 0..<30))) {
                            operation.cancel()
                        }
                    default: break
                    }
                }
            }
            await counters.waitForTotal(loads)
            // Every load has reported (so each has ended), and the callback queue has run dry.
            #expect(!h.manager.isRunning)
            await CallbackQueue.shared.drained()
            #expect(counters.total == loads)
            #expect(counters.allExactlyOnce, "every completion exactly once")
            // A load nobody cancelled gets its image, whoever else shared its download and cancelled;
            // a cancelled one gets its image (the cancel came too late) or `cancelled`, nothing else.
            let outcomes = counters.outcomes
            let lost = outcomes.indices.filter { !outcomes[$0].cancelRequested && outcomes[$0].outcome != .image }
            #expect(lost.isEmpty, "\(lost.count) loads that were never cancelled got no image")
            #expect(outcomes.allSatisfy { $0.outcome == .image || $0.outcome == .cancelled })
            #expect(outcomes.contains { $0.outcome == .cancelled }, "some cancellations took effect")
            // A finished download leaves the queue before its callers hear of it; a cancelled one
            // when its last caller cancels — possibly from a cache query's callback that raced the
            // cancel, so those callbacks must have run.
            h.caches.drain()
            #expect(h.downloader.currentDownloadCount == 0)
        }
    }

    @Test func urlsWhoseEveryCallerCancelledBeforeStartingAreNeverRequested() async throws {
        var config = DownloaderConfig.default
        config.maxConcurrentDownloads = 2
        try await withManager(config) { h in
            // Both slots held by bodies that wait for the gate.
            let gate = TestGate()
            let stalled = TestOriginRoute.data(ManagerFixtures.png(16, 16), mode: .gated(0, gate))
            h.origin.setRoute("/busy/0.png", stalled)
            h.origin.setRoute("/busy/1.png", stalled)
            for index in 0..<100 { h.origin.setRoute("/never/\(index).png", .data(ManagerFixtures.png(4, 4))) }
            let busy = ResultRecorder()
            for index in 0..<2 {
                h.manager.loadImage(with: h.origin.url("/busy/\(index).png"), options: .fromLoaderOnly,
                                    completed: busy.completion)
            }
            await h.origin.wait("both slots busy") { $0.inFlight == 2 }
            let cancelled = ResultRecorder()
            let operations = Mutex<[ImageManagerOperation]>([])
            DispatchQueue.concurrentPerform(iterations: 4) { thread in
                for index in stride(from: thread, to: 100, by: 4) {
                    // Two callers per URL, both cancelled while the queue is full.
                    for _ in 0..<2 {
                        let operation = h.manager.loadImage(with: h.origin.url("/never/\(index).png"),
                                                            options: .fromLoaderOnly, completed: cancelled.completion)
                        operations.withLock { $0.append(operation) }
                    }
                }
            }
            let all = operations.withLock { $0 }
            DispatchQueue.concurrentPerform(iterations: 4) { thread in
                for index in stride(from: thread, to: all.count, by: 4) { all[index].cancel() }
            }
            // Every cancelled load has reported and left the downloader's queue (it was taken out
            // when its last caller cancelled), so none of them can start when the slots free up.
            #expect(await cancelled.waitForFinals(200).allSatisfy { $0.error?.code == .cancelled })
            #expect(h.downloader.currentDownloadCount == 2)
            gate.open()
            await busy.waitForFinals(2)
            await CallbackQueue.shared.drained()
            #expect(cancelled.results.count == 200)
            let neverRequested = (0..<100).allSatisfy { h.origin.requestCount("/never/\($0).png") == 0 }
            #expect(neverRequested)
            #expect(h.downloader.currentDownloadCount == 0 && !h.manager.isRunning)
        }
    }

    @Test func memoryPlateausUnderTheCostLimit() async throws {
        let count = Self.full ? 2_000 : 200
        let side = Self.full ? 1000 : 500
        let limit = Self.full ? 100 * 1024 * 1024 : 8 * 1024 * 1024
        try await withTestOrigin { origin in
            try await withDownloader { downloader in
                let caches = ImageCacheHarness { $0.maxMemoryCost = limit }
                defer { caches.remove() }
                let manager = ImageManager(cache: caches.cache, loader: downloader)
                let picture = ManagerFixtures.jpeg(side, side)
                for index in 0..<count { origin.setRoute("/m/\(index).jpg", .data(picture, contentType: "image/jpeg")) }
                let startRSS = ProcessMemory.residentBytes()
                // Peak RSS while the first half of the loads finish, then while the second half do.
                var peakRSS = (firstHalf: startRSS, secondHalf: 0)
                var loaded = 0
                let live = LiveImages()
                try await withThrowingTaskGroup(of: Bool.self) { group in
                    var next = 0
                    func add() {
                        let url = origin.url("/m/\(next).jpg")
                        next += 1
                        group.addTask {
                            guard let image = (try? await manager.image(for: url))?.image else { return false }
                            live.track(image)
                            return true
                        }
                    }
                    for _ in 0..<8 { add() }
                    while let ok = try await group.next() {
                        if ok { loaded += 1 }
                        let rss = ProcessMemory.residentBytes()
                        if loaded <= count / 2 {
                            peakRSS.firstHalf = max(peakRSS.firstHalf, rss)
                        } else {
                            peakRSS.secondHalf = max(peakRSS.secondHalf, rss)
                        }
                        #expect(caches.cache.memoryCache.totalCost <= limit)
                        if next < count { add() }
                    }
                }
                #expect(loaded == count)
                #expect(caches.cache.memoryCache.totalCost <= limit)
                // What the library still holds is what the memory cache may hold: no image leaks.
                let imageBytes = side * side * 4
                #expect(live.aliveCount * imageBytes <= limit, "\(live.aliveCount) of \(count) images still alive")
                let decodedTotal = count * imageBytes
                print("stress: \(count) images of \(side)×\(side) (\(decodedTotal >> 20) MiB decoded) under a "
                      + "\(limit >> 20) MiB cost limit: RSS \(startRSS >> 20) → peak \(peakRSS.firstHalf >> 20) MiB "
                      + "in the first half, \(peakRSS.secondHalf >> 20) MiB in the second")
                // A plateau: the second half, which decodes as much as the first, must not climb past the
                // first half's peak. A leak of the decoded images would add half of `decodedTotal` (100 MiB at
                // the CI size, 3.8 GiB at the full one). The CI margin is wide because other suites run in
                // the same process at the same time and their allocations show in its RSS too. A
                // sanitizer's shadow memory and quarantine of freed blocks make RSS say nothing here.
                let margin = Self.full ? limit / 2 : 64 * 1024 * 1024
                if SanitizerRun.name == nil {
                    #expect(peakRSS.secondHalf <= peakRSS.firstHalf + margin)
                }
                if Self.full, SanitizerRun.name == nil {
                    // Everything decoded is 7.6 GiB; the process must stay within a small multiple of the limit.
                    #expect(max(peakRSS.firstHalf, peakRSS.secondHalf) - startRSS < 6 * limit)
                }
            }
        }
    }
}

/// Per-load completion counters, outcomes and whether the test asked to cancel the load.
final class Completions: Sendable {
    enum Outcome: Sendable, Equatable { case pending, image, cancelled, otherwise }

    struct Load: Sendable {
        var completions = 0
        var outcome = Outcome.pending
        var cancelRequested = false
    }

    private let loads: Mutex<[Load]>
    private let sum = Watched(0)

    init(count: Int) { loads = Mutex(Array(repeating: Load(), count: count)) }

    func add(_ index: Int, _ result: ImageManagerResult? = nil) {
        let outcome: Outcome = if result?.image != nil { .image }
            else if result?.error?.code == .cancelled { .cancelled } else { .otherwise }
        loads.withLock {
            $0[index].completions += 1
            $0[index].outcome = outcome
        }
        sum.update { $0 += 1 }
    }

    /// Records that the test cancels load `index` (before calling cancel, which may complete it inline).
    func markCancelled(_ index: Int) { loads.withLock { $0[index].cancelRequested = true } }

    var total: Int { sum.value }

    /// Waits until `count` completions have arrived in all.
    func waitForTotal(_ count: Int, sourceLocation: SourceLocation = #_sourceLocation) async {
        await sum.wait("\(count) completions", timeout: .seconds(300 * SanitizerRun.slowdown),
                       sourceLocation: sourceLocation) { $0 >= count }
    }
    var allExactlyOnce: Bool { loads.withLock { $0.allSatisfy { $0.completions == 1 } } }
    var outcomes: [Load] { loads.withLock { $0 } }
}

/// Weak references to every image a test received, to count those something still holds.
final class LiveImages: Sendable {
    private struct Reference: Sendable {
        weak var image: Image?
    }

    private let references = Mutex<[Reference]>([])

    func track(_ image: Image) { references.withLock { $0.append(Reference(image: image)) } }

    var aliveCount: Int { references.withLock { $0.count { $0.image != nil } } }
}

/// The process's resident memory now (0 where it cannot be read).
enum ProcessMemory {
    static func residentBytes() -> Int { ProcessMemoryUsage.residentBytes ?? 0 }
}
