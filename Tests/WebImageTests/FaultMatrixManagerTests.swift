import Foundation
import Synchronization
import Testing
@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageLoading

/// Fault matrix, through ``ImageManager``: every network fault as the loader delivers it, loaded
/// with `loadImage`, plain and progressive. Each case pins the caller's one final error, that
/// nothing was stored (memory, disk, no temporary or partial file), the block-list decision and
/// what a second load of the URL (async `image(for:)`) then gets, and that the manager still
/// loads a good image afterwards. (How the downloader turns each fault on the wire into these
/// results is FaultMatrixResponseTests' and FaultMatrixSizeTests' subject.)
@Suite("Fault matrix: network faults through the image manager")
struct FaultMatrixManagerTests {
    @Test(arguments: ManagerFault.allCases, [false, true])
    func aFaultReachesTheCallerOnceAndStoresNothing(_ fault: ManagerFault, progressive: Bool) async throws {
        try await withScriptedManager { h in
            let url = try fault.url(on: h.loader)
            let options: WebImageOptions = progressive ? [.progressiveLoad] : []
            let result = try await ManagerFaultChecks.load(h.manager, url, options: options)
            ManagerFaultChecks.expectFailure(result, fault.expected, url: url)
            #expect(h.manager.isFailedURL(url) == fault.blocksTheURL)
            ManagerFaultChecks.expectNothingStored(h, url)

            if !progressive {
                // Loaded again: a block-listed URL fails at once, any other meets the fault again.
                let requests = h.loader.requestCount
                let again = await loadError(h.manager, url)
                #expect(again?.code == (fault.blocksTheURL ? .blackListed : fault.expected))
                #expect(again?.url == url)
                #expect(h.loader.requestCount == requests + (fault.blocksTheURL ? 0 : 1))
                ManagerFaultChecks.expectNothingStored(h, url)
            }
            try await ManagerFaultChecks.expectHealthy(h)
        }
    }

    @Test func aBlockListedURLFailsAtOnceUntilRetryFailedSucceeds() async throws {
        try await withScriptedManager { h in
            let url = try ManagerFault.htmlAsJPEG.url(on: h.loader)
            ManagerFaultChecks.expectFailure(try await ManagerFaultChecks.load(h.manager, url), .badImageData, url: url)
            #expect(h.manager.isFailedURL(url))

            // Without .retryFailed: refused before any cache query or request, through both APIs.
            let blocked = try await ManagerFaultChecks.load(h.manager, url)
            ManagerFaultChecks.expectFailure(blocked, .blackListed, url: url)
            #expect(blocked.error?.message.contains("retryFailed") == true)
            #expect(await loadError(h.manager, url)?.code == .blackListed)
            #expect(h.loader.requestCount(url) == 1)

            // With .retryFailed while the origin still serves HTML: requested, fails, stays listed.
            ManagerFaultChecks.expectFailure(try await ManagerFaultChecks.load(h.manager, url, options: .retryFailed),
                                             .badImageData, url: url)
            #expect(h.manager.isFailedURL(url))
            #expect(h.loader.requestCount(url) == 2)
            ManagerFaultChecks.expectNothingStored(h, url)

            // The origin is fixed: .retryFailed loads it, takes it off the list and caches it.
            h.loader.setScript(.body(ManagerFixtures.jpeg(8, 6), contentType: "image/jpeg"), for: url)
            let fixed = try await ManagerFaultChecks.load(h.manager, url, options: .retryFailed)
            #expect(fixed.error == nil && fixed.image?.pixelSize == PixelSize(width: 8, height: 6))
            #expect(!h.manager.isFailedURL(url))
            #expect(h.loader.requestCount(url) == 3)
            h.drain()
            #expect(h.cache.imageFromMemoryCache(forKey: url.absoluteString) != nil)
            #expect(h.cache.diskImageDataExists(forKey: url.absoluteString))
            // And a plain load now takes it from memory without a request.
            let hit = try await h.manager.image(for: url)
            #expect(hit.cacheType == .memory && h.loader.requestCount(url) == 3)
        }
    }

    @Test func aFiveHundredsBurstThenSuccessIsNeverBlockListedAndCachesOnlyTheSuccess() async throws {
        try await withScriptedManager { h in
            let picture = ManagerFixtures.png(12, 10)
            let url = h.url("/flaky.png")
            h.loader.setScripts([.status(500), .status(502), .status(503), .body(picture, contentType: "image/png")],
                                for: url)
            for status in [500, 502, 503] {
                let result = try await ManagerFaultChecks.load(h.manager, url)
                ManagerFaultChecks.expectFailure(result, .invalidDownloadStatusCode, url: url)
                #expect(result.error?.httpStatus == status)
                #expect(!h.manager.isFailedURL(url))
                ManagerFaultChecks.expectNothingStored(h, url)
            }
            let success = try await h.manager.image(for: url)
            #expect(success.image?.pixelSize == PixelSize(width: 12, height: 10) && success.cacheType == .none)
            h.drain()
            #expect(h.cache.diskImageData(forKey: url.absoluteString) == Data(picture))
            #expect(try await h.manager.image(for: url).cacheType == .memory)
            #expect(h.loader.requestCount(url) == 4)
            #expect(!h.manager.isRunning)
        }
    }
}
