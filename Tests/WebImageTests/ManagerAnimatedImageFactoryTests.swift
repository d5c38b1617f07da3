import Foundation
import Synchronization
import Testing
@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageLoading

/// A context's animated-image factory and `matchAnimatedImageClass`, end to end through the
/// manager, the scripted loader's real decode step and the cache (SDWebImage's
/// `animatedImageClass` and `SDWebImageMatchAnimatedImageClass`).
@Suite("Image manager: the animated-image factory and matchAnimatedImageClass")
struct ManagerAnimatedImageFactoryTests {
    @Test func theFactoryMakesADownloadedAnimationAndMarksIt() async throws {
        try await withScriptedManager { h in
            let url = h.serve("/a.gif", .body(ManagerFixtures.animatedGIF(6, 6), contentType: "image/gif"))
            let factory = CountingFactory()
            let result = try await h.manager.image(for: url, context: factory.context)
            let image = try #require(result.image)
            #expect(image.animatedImageFactoryName == CountingFactory.factoryName)
            #expect(image.frameCount == 3 && image.animation != nil)
            #expect(factory.calls == 1)
            // The cache holds the factory's image.
            #expect(h.cache.memoryCache.get(forKey: url.absoluteString)?.animatedImageFactoryName == CountingFactory.factoryName)
        }
    }

    @Test func dataTheFactoryDeclinesGoesToTheCoderUnlessTheRequestMustMatch() async throws {
        try await withScriptedManager { h in
            let jpeg = h.serve("/a.jpg", .body(ManagerFixtures.jpeg(8, 8), contentType: "image/jpeg"))
            let again = h.serve("/b.jpg", .body(ManagerFixtures.jpeg(8, 8), contentType: "image/jpeg"))
            let factory = CountingFactory()
            let decoded = try await h.manager.image(for: jpeg, context: factory.context)
            #expect(decoded.image?.pixelSize == PixelSize(width: 8, height: 8))
            #expect(decoded.image?.animatedImageFactoryName == nil)

            do {
                _ = try await h.manager.image(for: again, options: .matchAnimatedImageClass, context: factory.context)
                Issue.record("a JPEG matched the animated-image factory")
            } catch let error as WebImageError {
                #expect(error.code == .badImageData && error.message.contains("matchAnimatedImageClass"))
            }
            #expect(factory.calls == 2)
            #expect(h.cache.memoryCache.get(forKey: again.absoluteString) == nil)
        }
    }

    @Test func aFactoryErrorFallsBackToTheCoderUnlessTheRequestMustMatch() async throws {
        try await withScriptedManager { h in
            let gif = ManagerFixtures.animatedGIF(6, 6)
            let a = h.serve("/a.gif", .body(gif, contentType: "image/gif"))
            let b = h.serve("/b.gif", .body(gif, contentType: "image/gif"))
            var context = WebImageContext()
            context.animatedImageFactory = FailingFactory()
            let fallback = try await h.manager.image(for: a, context: context)
            #expect(fallback.image?.frameCount == 3)
            #expect(fallback.image?.animatedImageFactoryName == nil)
            do {
                _ = try await h.manager.image(for: b, options: .matchAnimatedImageClass, context: context)
                Issue.record("a failed factory's request succeeded")
            } catch let error as WebImageError {
                #expect(error.code == .badImageData && error.message.contains("makes nothing"))
            }
        }
    }

    /// SDWebImage: a memory hit of another class is a miss when the request must match; the disk
    /// copy is then decoded by the factory and replaces the memory entry.
    @Test func aMemoryHitOfAnotherKindIsAMissWhenTheRequestMustMatch() async throws {
        try await withScriptedManager { h in
            let url = h.serve("/a.gif", .body(ManagerFixtures.animatedGIF(6, 6), contentType: "image/gif"))
            let plain = try await h.manager.image(for: url, options: .waitStoreCache)
            #expect(plain.image?.animatedImageFactoryName == nil)
            let factory = CountingFactory()

            // Without the option the plain memory entry serves the factory's request.
            let hit = try await h.manager.image(for: url, context: factory.context)
            #expect(hit.cacheType == .memory && hit.image === plain.image)
            #expect(factory.calls == 0)

            let matched = try await h.manager.image(for: url, options: .matchAnimatedImageClass, context: factory.context)
            #expect(matched.cacheType == .disk)
            #expect(matched.image?.animatedImageFactoryName == CountingFactory.factoryName)
            #expect(factory.calls == 1)
            #expect(h.loader.requestCount(url) == 1)

            // Now memory holds the factory's image: the next matching load is a memory hit.
            let second = try await h.manager.image(for: url, options: .matchAnimatedImageClass, context: factory.context)
            #expect(second.cacheType == .memory && second.image === matched.image)
            #expect(factory.calls == 1)
        }
    }

    @Test func aFirstFrameOnlyRequestSkipsTheFactoryAndNeedNotMatch() async throws {
        try await withScriptedManager { h in
            let url = h.serve("/a.gif", .body(ManagerFixtures.animatedGIF(6, 6), contentType: "image/gif"))
            let factory = CountingFactory()
            let result = try await h.manager.image(for: url, options: [.decodeFirstFrameOnly, .matchAnimatedImageClass],
                                                   context: factory.context)
            #expect(result.image?.isAnimated == false)
            #expect(result.image?.animatedImageFactoryName == nil)
            #expect(factory.calls == 0)
        }
    }

    @Test func aTransformedAnimationKeepsItsFactoryName() async throws {
        try await withScriptedManager { h in
            let url = h.serve("/a.gif", .body(ManagerFixtures.animatedGIF(6, 6), contentType: "image/gif"))
            let factory = CountingFactory()
            var context = factory.context
            context.imageTransformer = FlippingTransformer(horizontal: true, vertical: false)
            let result = try await h.manager.image(for: url, options: [.transformAnimatedImage, .matchAnimatedImageClass],
                                                   context: context)
            #expect(result.image?.frameCount == 3)
            #expect(result.image?.animatedImageFactoryName == CountingFactory.factoryName)
            // So the transformed entry in memory serves the next matching load.
            let again = try await h.manager.image(for: url, options: [.transformAnimatedImage, .matchAnimatedImageClass],
                                                  context: context)
            #expect(again.cacheType == .memory && again.image === result.image)
        }
    }

    /// A factory of one's own frames: whatever the data holds, the image plays the factory's
    /// decoder, frame by frame on request.
    @Test func aFactoryCanMakeImagesWithItsOwnFrameDecoder() async throws {
        try await withScriptedManager { h in
            let url = h.serve("/a.gif", .body(ManagerFixtures.animatedGIF(6, 6), contentType: "image/gif"))
            var context = WebImageContext()
            context.animatedImageFactory = SolidFramesFactory()
            let result = try await h.manager.image(for: url, options: .matchAnimatedImageClass, context: context)
            let image = try #require(result.image)
            #expect(image.frameCount == 5 && image.animatedImageFactoryName == "test.solid")
            #expect(SolidFrameDecoder.index(of: try image.frame(at: 4).bitmap) == 4)
        }
    }

    @Test func theOptionHasSDWebImagesBitAndName() {
        #expect(WebImageOptions.matchAnimatedImageClass.rawValue == 1 << 21)
        #expect(WebImageOptions(name: "matchAnimatedImageClass") == .matchAnimatedImageClass)
    }

    @Test func theBuiltInFactoryMakesImagesOnlyFromFormatsThatCanAnimate() throws {
        let factory = CoderAnimatedImageFactory()
        let gif = try #require(try factory.makeMarkedImage(from: Data(ManagerFixtures.animatedGIF(6, 6)), options: DecodeOptions()))
        #expect(gif.animatedImageFactoryName == CoderAnimatedImageFactory.defaultName && gif.frameCount == 3)
        let png = try factory.makeMarkedImage(from: Data(ManagerFixtures.png(4, 4)), options: DecodeOptions())
        #expect(png?.frameCount == 1 && png?.animatedImageFactoryName == CoderAnimatedImageFactory.defaultName)
        #expect(try factory.makeImage(from: Data(ManagerFixtures.jpeg(4, 4)), options: DecodeOptions()) == nil)
    }
}

/// The built-in factory under a test name, counting the images it is asked for.
private final class CountingFactory: AnimatedImageFactory {
    static let factoryName = "test.counting"
    let name = CountingFactory.factoryName
    private let inner = CoderAnimatedImageFactory()
    private let count = Mutex(0)

    var calls: Int { count.withLock { $0 } }

    /// A context naming this factory.
    var context: WebImageContext {
        var context = WebImageContext()
        context.animatedImageFactory = self
        return context
    }

    func makeImage(from data: Data, options: DecodeOptions) throws -> Image? {
        count.withLock { $0 += 1 }
        return try inner.makeImage(from: data, options: options)
    }
}

/// A factory whose every attempt fails.
private struct FailingFactory: AnimatedImageFactory {
    let name = "test.failing"
    func makeImage(from data: Data, options: DecodeOptions) throws -> Image? {
        throw WebImageError(.badImageData, "This factory makes nothing.")
    }
}

/// A factory making five solid frames from any data, decoded on request.
private struct SolidFramesFactory: AnimatedImageFactory {
    let name = "test.solid"
    func makeImage(from data: Data, options: DecodeOptions) throws -> Image? {
        try Image.lazyAnimation(durations: [0.1, 0.1, 0.1, 0.1, 0.1])
    }
}
