import Foundation
import Synchronization
import Testing
@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageLoading

/// Fault matrix, through ``ImageManager``: every network fault loaded with `loadImage`, plain and
/// progressive. Each case pins the caller's one final error, that nothing was stored (memory,
/// disk, no temporary or partial file), the block-list decision and what a second load of the
/// URL (async `image(for:)`) then gets, and that the manager still loads a good image afterwards.
@Suite("Fault matrix: network faults through the image manager")
struct FaultMatrixManagerTests {
    @Test(arguments: ManagerFault.allCases, [false, true])
    func aFaultReachesTheCallerOnceAndStoresNothing(_ fault: ManagerFault, progressive: Bool) async throws {
        try await withManager(fault.config) { h in
            let url = try await fault.url(on: h.origin)
            let options: WebImageOptions = progressive ? [.progressiveLoad] : []
            let result = try await ManagerFaultChecks.load(h.manager, url, options: options)
            ManagerFaultChecks.expectFailure(result, fault.expected, url: url)
            #expect(h.manager.isFailedURL(url) == fault.blocksTheURL)
            await ManagerFaultChecks.expectNothingStored(h, url)

            if !progressive {
                // Loaded again: a block-listed URL fails at once, any other meets the fault again.
                let requests = h.origin.stats.requests.count
                let again = await loadError(h.manager, url)
                #expect(again?.code == (fault.blocksTheURL ? .blackListed : fault.expected))
                #expect(again?.url?.path.hasPrefix(url.path) == true)
                if fault.blocksTheURL { #expect(h.origin.stats.requests.count == requests) }
                await ManagerFaultChecks.expectNothingStored(h, url)
            }
            try await ManagerFaultChecks.expectHealthy(h)
        }
    }

    @Test func aBlockListedURLFailsAtOnceUntilRetryFailedSucceeds() async throws {
        try await withManager(FaultMatrix.config()) { h in
            let url = try await ManagerFault.htmlAsJPEG.url(on: h.origin)
            let path = url.path
            ManagerFaultChecks.expectFailure(try await ManagerFaultChecks.load(h.manager, url), .badImageData, url: url)
            #expect(h.manager.isFailedURL(url))

            // Without .retryFailed: refused before any cache query or request, through both APIs.
            let blocked = try await ManagerFaultChecks.load(h.manager, url)
            ManagerFaultChecks.expectFailure(blocked, .blackListed, url: url)
            #expect(blocked.error?.message.contains("retryFailed") == true)
            #expect(await loadError(h.manager, url)?.code == .blackListed)
            #expect(h.origin.requestCount(path) == 1)

            // With .retryFailed while the origin still serves HTML: requested, fails, stays listed.
            ManagerFaultChecks.expectFailure(try await ManagerFaultChecks.load(h.manager, url, options: .retryFailed),
                                             .badImageData, url: url)
            #expect(h.manager.isFailedURL(url))
            #expect(h.origin.requestCount(path) == 2)
            await ManagerFaultChecks.expectNothingStored(h, url)

            // The origin is fixed: .retryFailed loads it, takes it off the list and caches it.
            h.origin.setRoute(path, .data(ManagerFixtures.jpeg(8, 6), contentType: "image/jpeg"))
            let fixed = try await ManagerFaultChecks.load(h.manager, url, options: .retryFailed)
            #expect(fixed.error == nil && fixed.image?.pixelSize == PixelSize(width: 8, height: 6))
            #expect(!h.manager.isFailedURL(url))
            #expect(h.origin.requestCount(path) == 3)
            await h.settle()
            #expect(h.cache.imageFromMemoryCache(forKey: url.absoluteString) != nil)
            #expect(h.cache.diskImageDataExists(forKey: url.absoluteString))
            // And a plain load now takes it from memory without a request.
            let hit = try await h.manager.image(for: url)
            #expect(hit.cacheType == .memory && h.origin.requestCount(path) == 3)
        }
    }

    @Test func aFiveHundredsBurstThenSuccessIsNeverBlockListedAndCachesOnlyTheSuccess() async throws {
        try await withManager(FaultMatrix.config()) { h in
            let picture = ManagerFixtures.png(12, 10)
            let served = Served()
            h.origin.setHandler("/flaky.png") { _ in
                let attempt = served.next()
                return attempt <= 3 ? .status([500, 502, 503][attempt - 1]) : .data(picture, contentType: "image/png")
            }
            let url = h.origin.url("/flaky.png")
            for status in [500, 502, 503] {
                let result = try await ManagerFaultChecks.load(h.manager, url)
                ManagerFaultChecks.expectFailure(result, .invalidDownloadStatusCode, url: url)
                #expect(result.error?.httpStatus == status)
                #expect(!h.manager.isFailedURL(url))
                await ManagerFaultChecks.expectNothingStored(h, url)
            }
            let success = try await h.manager.image(for: url)
            #expect(success.image?.pixelSize == PixelSize(width: 12, height: 10) && success.cacheType == .none)
            await h.settle()
            #expect(h.cache.diskImageData(forKey: url.absoluteString) == Data(picture))
            #expect(try await h.manager.image(for: url).cacheType == .memory)
            #expect(h.origin.requestCount("/flaky.png") == 4)
            #expect(!h.manager.isRunning)
        }
    }
}

/// Counts requests a handler has served.
private final class Served: Sendable {
    private let count = Mutex(0)
    func next() -> Int { count.withLock { $0 += 1; return $0 } }
}
