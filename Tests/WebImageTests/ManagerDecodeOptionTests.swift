import Foundation
import Synchronization
import Testing
@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageLoading

/// The decode options a load's flags imply, end to end: manager → loader → decode → manager.
@Suite("Image manager: scaleDownLargeImages and decodeFirstFrameOnly on the download path")
struct ManagerDecodeOptionTests {
    @Test func scaleDownLargeImagesReachesTheDownloadDecodeWithTheDefaultBudget() async throws {
        try await withScriptedManager { h in
            let big = h.serve("/big.png", .png(30, 30))
            let plain = h.serve("/plain.png", .png(30, 30))
            let coder = OptionsRecordingCoder()
            var context = WebImageContext()
            context.imageCoder = coder
            _ = try await h.manager.image(for: big, options: [.scaleDownLargeImages, .waitStoreCache], context: context)
            _ = try await h.manager.image(for: plain, context: context)
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
        try await withScriptedManager { h in
            let body = ManagerFixtures.png(400, 400)
            let url = h.serve("/prog.png", LoadScript.body(body, contentType: "image/png")
                .inChunks(body.count / 2).holding(.beforeCompletion))
            var context = WebImageContext()
            context.scaleDownLimitBytes = 200 * 200 * 4
            let recorder = ResultRecorder()
            let operation = h.manager.loadImage(with: url, options: [.fromLoaderOnly, .scaleDownLargeImages, .progressiveLoad],
                                                context: context, completed: recorder.completion)
            // Half the body has arrived and its partial image has been delivered.
            await h.loader.waitUntilHeld(url, at: .beforeCompletion)
            h.loader.release(url)
            await recorder.waitForFinals()
            let results = await recorder.settled(operation)
            let partials = results.filter { !$0.isFinished }
            let finals = results.filter(\.isFinished)
            #expect(partials.count == 1 && finals.count == 1)
            let expected = PixelSize(width: 200, height: 200)
            for partial in partials {
                #expect(partial.image?.pixelSize == expected)
                #expect(partial.image?.isPartial == true)
            }
            #expect(finals.first?.image?.pixelSize == expected)
            #expect(finals.first?.image?.isPartial == false)
            // The context's budget beats the flag's 90 MiB default, and neither is part of the key.
            #expect(finals.first?.image?.decodeOptions?.scaleDownLimitBytes == 200 * 200 * 4)
            h.drain()
            #expect(h.cache.diskImageData(forKey: url.absoluteString) == Data(body))
        }
    }

    @Test func decodeFirstFrameOnlyGivesAStaticImageFromADownload() async throws {
        try await withScriptedManager { h in
            let gif = ManagerFixtures.animatedGIF(6, 6)
            let a = h.serve("/a.gif", .body(gif, contentType: "image/gif"))
            let b = h.serve("/b.gif", .body(gif, contentType: "image/gif"))
            let first = try await h.manager.image(for: a, options: [.decodeFirstFrameOnly, .waitStoreCache])
            #expect(first.cacheType == ImageCacheType.none)
            #expect(first.image?.frames.count == 1 && first.image?.isAnimated == false)
            // The cached copy is the static one; the bytes stay the full animation.
            let key = a.absoluteString
            #expect(h.cache.memoryCache.get(forKey: key)?.frames.count == 1)
            #expect(h.cache.diskImageData(forKey: key) == Data(gif))
            // Without the flag the same bytes decode to all three frames.
            let animated = try await h.manager.image(for: b)
            #expect(animated.image?.frames.count == 3)
        }
    }

    @Test func animationsDecodeLazilyUnlessPreloadAllFramesIsSet() async throws {
        try await withScriptedManager { h in
            let gif = ManagerFixtures.animatedGIF(6, 6)
            let a = h.serve("/a.gif", .body(gif, contentType: "image/gif"))
            let b = h.serve("/b.gif", .body(gif, contentType: "image/gif"))
            let lazy = try #require(try await h.manager.image(for: a).image)
            let animation = try #require(lazy.animation)
            #expect(lazy.frameCount == 3 && animation.decodeCount == 0 && !lazy.isAllFramesLoaded)
            #expect(lazy.animatedImageData == Data(gif))
            // The memory cache charges the data and the poster, not three decoded frames.
            #expect(lazy.memoryCost == gif.count + 6 * 6 * 4)
            let preloaded = try #require(try await h.manager.image(for: b, options: .preloadAllFrames).image)
            #expect(preloaded.animation == nil && preloaded.frameCount == 3 && preloaded.isAllFramesLoaded)
            #expect(preloaded.decodeOptions?.preloadsAllFrames == true)
            // Storing a lazy animation without data writes its own bytes, not a re-encode.
            #expect(try h.cache.encodedData(for: lazy, context: WebImageContext()) == Data(gif))
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
