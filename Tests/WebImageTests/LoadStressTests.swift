import Foundation
import Synchronization
import Testing
@testable import WebImage

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
                                                        options: options) { _ in counters.add(load) }
                    switch Int.random(in: 0..<10, using: &random) {
                    case 0..<2: operation.cancel()
                    case 2..<4:
                        DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(Int.random(in: 0..<30))) {
                            operation.cancel()
                        }
                    default: break
                    }
                }
            }
            #expect(await waitUntil(timeout: .seconds(60)) { counters.total == loads })
            try? await Task.sleep(for: .milliseconds(100))
            #expect(counters.allExactlyOnce, "every completion exactly once")
            #expect(await waitUntil { !h.manager.isRunning })
            #expect(await waitUntil { h.downloader.currentDownloadCount == 0 })
        }
    }

    @Test func urlsWhoseEveryCallerCancelledBeforeStartingAreNeverRequested() async throws {
        var config = DownloaderConfig.default
        config.maxConcurrentDownloads = 2
        try await withManager(config) { h in
            var stalled = TestOriginRoute.data(ManagerFixtures.png(16, 16))
            stalled.delay = .milliseconds(500)
            h.origin.setRoute("/busy/0.png", stalled)
            h.origin.setRoute("/busy/1.png", stalled)
            for index in 0..<100 { h.origin.setRoute("/never/\(index).png", .data(ManagerFixtures.png(4, 4))) }
            let busy = ResultRecorder()
            for index in 0..<2 {
                h.manager.loadImage(with: h.origin.url("/busy/\(index).png"), options: .fromLoaderOnly,
                                    completed: busy.completion)
            }
            #expect(await waitUntil { h.origin.stats.inFlight == 2 })
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
            _ = await busy.waitForFinals(2)
            #expect(await cancelled.waitForFinals(200).allSatisfy { $0.error?.code == .cancelled })
            #expect(cancelled.results.count == 200)
            try? await Task.sleep(for: .milliseconds(200))
            let neverRequested = (0..<100).allSatisfy { h.origin.requestCount("/never/\($0).png") == 0 }
            #expect(neverRequested)
            #expect(h.downloader.currentDownloadCount == 0 && !h.manager.isRunning)
        }
    }

    @Test func memoryPlateausUnderTheCostLimit() async throws {
        let count = Self.full ? 2_000 : 120
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
                var peakRSS = startRSS
                var loaded = 0
                try await withThrowingTaskGroup(of: Bool.self) { group in
                    var next = 0
                    func add() {
                        let url = origin.url("/m/\(next).jpg")
                        next += 1
                        group.addTask { (try? await manager.image(for: url))?.image != nil }
                    }
                    for _ in 0..<8 { add() }
                    while let ok = try await group.next() {
                        if ok { loaded += 1 }
                        peakRSS = max(peakRSS, ProcessMemory.residentBytes())
                        #expect(caches.cache.memoryCache.totalCost <= limit)
                        if next < count { add() }
                    }
                }
                #expect(loaded == count)
                #expect(caches.cache.memoryCache.totalCost <= limit)
                let decodedTotal = count * side * side * 4
                print("stress: \(count) images of \(side)×\(side) (\(decodedTotal >> 20) MiB decoded) under a "
                      + "\(limit >> 20) MiB cost limit: RSS \(startRSS >> 20) → peak \(peakRSS >> 20) MiB")
                if Self.full {
                    // Everything decoded is 7.6 GiB; the process must stay within a small multiple of the limit.
                    #expect(peakRSS - startRSS < 6 * limit)
                }
            }
        }
    }
}

/// Per-load completion counters.
final class Completions: Sendable {
    private let counters: Mutex<[Int]>
    private let sum = Atomic<Int>(0)

    init(count: Int) { counters = Mutex(Array(repeating: 0, count: count)) }

    func add(_ index: Int) {
        counters.withLock { $0[index] += 1 }
        sum.add(1, ordering: .relaxed)
    }

    var total: Int { sum.load(ordering: .relaxed) }
    var allExactlyOnce: Bool { counters.withLock { $0.allSatisfy { $0 == 1 } } }
}

/// The process's resident memory, from /proc/self/statm.
enum ProcessMemory {
    static func residentBytes() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }
}
