import Foundation
import Testing
@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageLoading

/// `WebImageContext.placeholderHash` on the scripted loader: the hash's picture is shown at once
/// in the placeholder's place, then the loaded image; the placeholder's rules hold for it.
@Suite("ImageTarget: BlurHash and ThumbHash placeholders")
struct ImageTargetPlaceholderHashTests {
    static let crimson = RGBA(r: 200, g: 30, b: 60)
    /// The ThumbHash of a flat crimson 40×20 picture (aspect ratio 2).
    static let thumbHash = ThumbHash.encode(Bitmap(width: 40, height: 20, fill: crimson))
    /// Its picture's size at the default decode side.
    static let decodedSize = try! ThumbHash.decode(thumbHash).pixelSize

    func context(_ hash: PlaceholderHash) -> WebImageContext {
        var context = WebImageContext()
        context.placeholderHash = hash
        return context
    }

    @Test func aThumbHashIsShownAtOnceThenTheImage() async throws {
        try await withScriptedManager { h in
            let url = h.serve("/a.png", LoadScript.png(12, 6).holding(.started))
            let target = RecordingTarget()
            let recorder = ResultRecorder()
            let base64 = ThumbHash.base64(Self.thumbHash)
            let operation = target.setImage(with: url, context: context(try .thumbHash(base64: base64)),
                                            manager: h.manager, completed: recorder.completion)
            // Before the call returned: the hash's picture, 32 on its longer side at the hash's
            // (approximate) aspect ratio.
            let shown = try #require(target.sets.first?.image)
            #expect(target.sets.count == 1 && target.sets[0].cacheType == .none)
            #expect(shown.pixelSize == Self.decodedSize && shown.width == 32 && shown.height < 20)
            #expect(shown.bitmap.pixel(x: 16, y: 8).isClose(to: Self.crimson, tolerance: 8))
            await h.loader.waitUntilHeld(url)
            h.loader.release(url)
            await recorder.waitForFinals()
            _ = await recorder.settled(operation)
            #expect(target.sets.count == 2 && target.image?.width == 12)
        }
    }

    @Test func aBlurHashIsDecodedAtTheSizeAsked() async throws {
        let hash = try BlurHash.encode(Bitmap(width: 16, height: 16, fill: Self.crimson), xComponents: 3, yComponents: 3)
        try await withScriptedManager { h in
            let url = h.serve("/b.png", LoadScript.png(5, 5).holding(.started))
            let target = RecordingTarget()
            let recorder = ResultRecorder()
            let size = PixelSize(width: 8, height: 4)
            let operation = target.setImage(with: url, context: context(.blurHash(hash, pixelSize: size)),
                                            manager: h.manager, completed: recorder.completion)
            let shown = try #require(target.sets.first?.image)
            #expect(shown.pixelSize == size)
            #expect(shown.bitmap.pixel(x: 4, y: 2).isClose(to: Self.crimson, tolerance: 2))
            await h.loader.waitUntilHeld(url)
            h.loader.release(url)
            await recorder.waitForFinals()
            _ = await recorder.settled(operation)
            #expect(target.image?.width == 5)
        }
    }

    /// A placeholder image wins over the hash; a hash that does not decode shows none (the old
    /// image is cleared, as with no placeholder); a memory hit shows no placeholder at all.
    @Test func theUsualPlaceholderRulesHold() async throws {
        try await withScriptedManager { h in
            let given = RecordingTarget()
            let url = h.serve("/c.png", LoadScript.png(4, 4).holding(.started))
            let first = given.setImage(with: url, placeholder: placeholderImage,
                                       context: context(.thumbHash(Self.thumbHash)), manager: h.manager)
            #expect(given.sets.count == 1 && given.image === placeholderImage)
            first.cancel()

            let broken = RecordingTarget()
            let other = h.serve("/d.png", LoadScript.png(4, 4).holding(.started))
            let second = broken.setImage(with: other, context: context(.blurHash("not a hash")), manager: h.manager)
            #expect(broken.sets.count == 1 && broken.image == nil)
            second.cancel()

            let cachedURL = h.url("/cached.png")
            let cached = Image(bitmap: TestBitmaps.gradient(width: 6, height: 3))
            h.cache.storeImageToMemory(cached, forKey: cachedURL.absoluteString)
            let hit = RecordingTarget()
            hit.setImage(with: cachedURL, context: context(.thumbHash(Self.thumbHash)), manager: h.manager)
            #expect(hit.sets.count == 1 && hit.image === cached && hit.sets[0].cacheType == .memory)
            h.drain()
        }
    }

    /// With `delayPlaceholder`, the hash's picture is shown only when the load ends with no image.
    @Test func aDelayedHashPlaceholderIsShownOnFailure() async throws {
        try await withScriptedManager { h in
            let missing = h.serve("/missing.png", LoadScript.status(404).holding(.started))
            let target = RecordingTarget()
            let recorder = ResultRecorder()
            let operation = target.setImage(with: missing, options: .delayPlaceholder,
                                            context: context(.thumbHash(Self.thumbHash)), manager: h.manager,
                                            completed: recorder.completion)
            #expect(target.sets.isEmpty)
            await h.loader.waitUntilHeld(missing)
            h.loader.release(missing)
            await recorder.waitForFinals()
            #expect(await recorder.settled(operation).first?.error != nil)
            #expect(target.sets.count == 1 && target.image?.pixelSize == Self.decodedSize)
        }
    }
}
