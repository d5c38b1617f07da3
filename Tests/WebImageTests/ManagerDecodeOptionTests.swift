import Foundation
import Synchronization
import Testing
@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageLoading

/// The decode options a load's flags imply, end to end: origin → downloader → decode → manager.
@Suite("Image manager: scaleDownLargeImages and decodeFirstFrameOnly on the download path")
struct ManagerDecodeOptionTests {
    @Test func scaleDownLargeImagesReachesTheDownloadDecodeWithTheDefaultBudget() async throws {
        try await withManager { h in
            h.origin.setRoute("/big.png", .data(ManagerFixtures.png(30, 30), contentType: "image/png"))
            h.origin.setRoute("/plain.png", .data(ManagerFixtures.png(30, 30), contentType: "image/png"))
            let coder = OptionsRecordingCoder()
            var context = WebImageContext()
            context.imageCoder = coder
            let big = h.origin.url("/big.png")
            _ = try await h.manager.image(for: big, options: [.scaleDownLargeImages, .waitStoreCache], context: context)
            _ = try await h.manager.image(for: h.origin.url("/plain.png"), context: context)
            let seen = coder.seen
            #expect(seen.count == 2)
            #expect(seen.first?.scaleDownLimitBytes == DecodeOptions.defaultScaleDownLimitBytes)
            #expect(seen.last?.scaleDownLimitBytes == nil)
            // Not part of the cache key: the full bytes are stored under the URL.
            #expect(h.manager.cacheKey(for: big, context: context) == big.absoluteString)
            #expect(h.cache.diskImageData(forKey: big.absoluteString) == Data(ManagerFixtures.png(30, 30)))
        }
    }

    /// SDWebImage's manager test13: with a byte budget and progressive loading, every partial image
    /// and the final one come out at the scaled size.
    @Test func scaleDownAppliesToEveryProgressivePartialAndTheFinalImage() async throws {
        try await withManager { h in
            let body = ManagerFixtures.png(400, 400)
            let gate = TestGate()
            var route = TestOriginRoute.data(body, contentType: "image/png")
            route.mode = .gated(body.count / 2, gate)
            h.origin.setRoute("/prog.png", route)
            var context = WebImageContext()
            context.scaleDownLimitBytes = 200 * 200 * 4
            let recorder = ResultRecorder()
            let partialSeen = TestGate()
            h.manager.loadImage(with: h.origin.url("/prog.png"),
                                options: [.fromLoaderOnly, .scaleDownLargeImages, .progressiveLoad],
                                context: context) { result in
                recorder.completion(result)
                if !result.isFinished { partialSeen.open(); gate.open() }
            }
            #expect(await waitUntil { partialSeen.opened })
            gate.open()
            let finals = await recorder.waitForFinals()
            let partials = recorder.results.filter { !$0.isFinished }
            #expect(!partials.isEmpty && finals.count == 1)
            let expected = PixelSize(width: 200, height: 200)
            for partial in partials {
                #expect(partial.image?.pixelSize == expected)
                #expect(partial.image?.isPartial == true)
            }
            #expect(finals.first?.image?.pixelSize == expected)
            #expect(finals.first?.image?.isPartial == false)
            // The context's budget beats the flag's 90 MiB default, and neither is part of the key.
            #expect(finals.first?.image?.decodeOptions?.scaleDownLimitBytes == 200 * 200 * 4)
            await h.settle()
            #expect(h.cache.diskImageData(forKey: h.origin.url("/prog.png").absoluteString) == Data(body))
        }
    }

    @Test func decodeFirstFrameOnlyGivesAStaticImageFromADownload() async throws {
        try await withManager { h in
            let gif = ManagerFixtures.animatedGIF(6, 6)
            h.origin.setRoute("/a.gif", .data(gif, contentType: "image/gif"))
            h.origin.setRoute("/b.gif", .data(gif, contentType: "image/gif"))
            let first = try await h.manager.image(for: h.origin.url("/a.gif"),
                                                  options: [.decodeFirstFrameOnly, .waitStoreCache])
            #expect(first.cacheType == ImageCacheType.none)
            #expect(first.image?.frames.count == 1 && first.image?.isAnimated == false)
            // The cached copy is the static one; the bytes stay the full animation.
            let key = h.origin.url("/a.gif").absoluteString
            #expect(h.cache.memoryCache.get(forKey: key)?.frames.count == 1)
            #expect(h.cache.diskImageData(forKey: key) == Data(gif))
            // Without the flag the same bytes decode to all three frames.
            let animated = try await h.manager.image(for: h.origin.url("/b.gif"))
            #expect(animated.image?.frames.count == 3)
        }
    }
}

/// Decodes with the shared coders and records the options each full decode was given.
final class OptionsRecordingCoder: ImageCoding {
    private let options = Mutex<[DecodeOptions]>([])

    var seen: [DecodeOptions] { options.withLock { $0 } }

    func canDecode(_ data: Data) -> Bool { CodersManager.shared.canDecode(data) }

    func decode(_ data: Data, options: DecodeOptions) throws -> Image {
        self.options.withLock { $0.append(options) }
        return try CodersManager.shared.decode(data, options: options)
    }

    func canEncode(to format: ImageFormat) -> Bool { CodersManager.shared.canEncode(to: format) }

    func encode(_ image: Image, as format: ImageFormat, options: EncodeOptions) throws -> Data {
        try CodersManager.shared.encode(image, as: format, options: options)
    }
}
