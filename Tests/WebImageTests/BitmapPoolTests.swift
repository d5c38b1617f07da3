import Foundation
import Testing
@testable import WebImageCodecs
@testable import WebImageLoading
@testable import WebImage

/// The bitmap pool: pixel memory of bitmaps nobody holds is reused for the next bitmap of the same
/// size, and memory a caller can still see is never handed out again. Each test binds a pool of
/// its own, so tests running in parallel do not share counters.
@Suite("Bitmap pool")
struct BitmapPoolTests {
    /// 256×256 RGBA: 256 KiB, above the pool's minimum.
    static let side = 256

    static func filled(_ value: UInt8, side: Int = side) -> Bitmap {
        Bitmap(width: side, height: side) { $0.update(repeating: value) }
    }

    static func address(_ bitmap: Bitmap) -> UInt {
        bitmap.withUnsafeBytes { UInt(bitPattern: $0.baseAddress) }
    }

    @Test func aDroppedBitmapsMemoryFillsTheNextOneOfItsSize() {
        let pool = BitmapPool(byteLimit: 4 << 20)
        BitmapPool.$current.withValue(pool) {
            var first: Bitmap? = Self.filled(1)
            let firstAddress = Self.address(first!)
            first = nil
            #expect(pool.statistics.heldCount == 1)
            let second = Self.filled(2)
            #expect(Self.address(second) == firstAddress)
            #expect(second.pixel(x: 10, y: 10) == RGBA(r: 2, g: 2, b: 2, a: 2))
            let stats = pool.statistics
            #expect(stats.hits == 1)
            #expect(stats.misses == 1)
            #expect(stats.recycled == 1)
            #expect(stats.heldCount == 0 && stats.heldBytes == 0)
            #expect(stats.hitRatio == 0.5)
            _ = first
        }
    }

    @Test func aBitmapKeptByACallerKeepsItsPixelsAcrossEvictions() {
        let pool = BitmapPool(byteLimit: 16 << 20)
        BitmapPool.$current.withValue(pool) {
            let bytes = Self.side * Self.side * 4
            // Room for two images: every set after the second evicts the oldest.
            let cache = MemoryCache(costLimit: 2 * bytes, maxEntryFraction: 1)
            let kept = Image(bitmap: Self.filled(7))
            cache.set(kept, forKey: "kept")
            for value in 8..<20 {
                cache.set(Image(bitmap: Self.filled(UInt8(value))), forKey: "other-\(value)")
            }
            #expect(!cache.contains(forKey: "kept"))
            #expect(pool.statistics.hits > 0, "evicted images nobody held were reused")
            kept.bitmap.withUnsafeBytes { pixels in
                #expect(pixels.allSatisfy { $0 == 7 })
            }
        }
    }

    @Test func anArrayTakenFromPixelsKeepsItsContentsWhenTheMemoryIsReused() {
        let pool = BitmapPool(byteLimit: 4 << 20)
        BitmapPool.$current.withValue(pool) {
            var bitmap: Bitmap? = Self.filled(3)
            let copy = bitmap!.pixels
            bitmap = nil
            let next = Self.filled(4)
            #expect(copy.allSatisfy { $0 == 3 })
            #expect(next.pixel(x: 0, y: 0) == RGBA(r: 4, g: 4, b: 4, a: 4))
            _ = bitmap
        }
    }

    @Test func theLimitDropsTheLongestHeldBuffersFirst() {
        let bytes = Self.side * Self.side * 4
        let pool = BitmapPool(byteLimit: 2 * bytes)
        BitmapPool.$current.withValue(pool) {
            var bitmaps: [Bitmap] = (0..<3).map { Self.filled(UInt8($0)) }
            let addresses = bitmaps.map(Self.address)
            bitmaps.removeAll()
            let stats = pool.statistics
            #expect(stats.heldCount == 2 && stats.heldBytes == 2 * bytes)
            #expect(stats.dropped == 1)
            // The newest buffer comes back first; the oldest one was dropped.
            #expect(Self.address(Self.filled(9)) == addresses[2])
            pool.byteLimit = 0
            #expect(pool.statistics.heldCount == 0)
        }
    }

    @Test func aPoolLimitOfZeroKeepsAndGivesNothing() {
        let pool = BitmapPool(byteLimit: 0)
        BitmapPool.$current.withValue(pool) {
            var bitmap: Bitmap? = Self.filled(1)
            bitmap = nil
            _ = Self.filled(2)
            let stats = pool.statistics
            #expect(stats.hits == 0 && stats.misses == 0 && stats.heldCount == 0)
            _ = bitmap
        }
    }

    @Test func smallBitmapsAndOtherSizesDoNotTouchThePool() {
        let pool = BitmapPool(byteLimit: 4 << 20)
        BitmapPool.$current.withValue(pool) {
            var small: Bitmap? = Bitmap(width: 64, height: 64, fill: .clear)  // 16 KiB
            small = nil
            #expect(pool.statistics.heldCount == 0)
            var large: Bitmap? = Self.filled(1)
            large = nil
            let other = Self.filled(2, side: 300)
            #expect(pool.statistics.heldCount == 1, "a buffer of another size is not taken")
            #expect(other.pixel(x: 299, y: 299).r == 2)
            _ = (small, large)
        }
    }

    @Test func aFailedFillReturnsTheBufferToThePool() {
        struct Refused: Error {}
        let pool = BitmapPool(byteLimit: 4 << 20)
        BitmapPool.$current.withValue(pool) {
            var bitmap: Bitmap? = Self.filled(1)
            bitmap = nil
            #expect(throws: Refused.self) {
                _ = try Bitmap(width: Self.side, height: Self.side) { _ in throw Refused() }
            }
            #expect(pool.statistics.heldCount == 1)
            #expect(Bitmap(width: Self.side, height: Self.side) { $0.update(repeating: 5) }.pixel(x: 1, y: 1).g == 5)
            _ = bitmap
        }
    }

    @Test func decodingTheSameSizeAgainReusesTheEvictedDecode() throws {
        let data = Data(ManagerFixtures.jpeg(400, 300))
        let pool = BitmapPool(byteLimit: 8 << 20)
        try BitmapPool.$current.withValue(pool) {
            var first: Image? = try JPEGCoder().decode(data, options: .default)
            let expected = first!.bitmap.pixels
            first = nil
            let second = try JPEGCoder().decode(data, options: .default)
            #expect(pool.statistics.hits == 1)
            #expect(second.bitmap.pixels == expected)
            _ = first
        }
    }

    @Test func framesAnAnimationBufferDropsAreReusedForLaterFrames() throws {
        // 8 frames of 256×256 through a buffer of one frame: every frame after the first few
        // is decoded into memory a dropped frame left.
        let frames = (0..<8).map { index in
            ImageFrame(bitmap: Bitmap(width: 256, height: 256, fill: RGBA(r: UInt8(30 * index), g: 90, b: 200)),
                       duration: 0.1)
        }
        let gif = try CodersManager.shared.encode(Image(frames: frames, loopCount: 0, format: .gif), as: .gif,
                                                  options: EncodeOptions())
        let pool = BitmapPool(byteLimit: 8 << 20)
        try BitmapPool.$current.withValue(pool) {
            var options = DecodeOptions.default
            options.limits.maxTotalBytes = 256 * 256 * 4
            let image = try GIFCoder().decode(gif, options: options)
            #expect(image.animation != nil)
            for index in 0..<image.frameCount {
                let frame = try image.frame(at: index).bitmap
                #expect(frame.pixel(x: 5, y: 5).r == UInt8(30 * index))
            }
            #expect(pool.statistics.hits >= 4)
        }
    }

    @Test func clearingTheMemoryCacheAlsoEmptiesThePool() {
        let pool = BitmapPool(byteLimit: 16 << 20)
        BitmapPool.$current.withValue(pool) {
            let harness = ImageCacheHarness()
            defer { harness.remove() }
            harness.cache.memoryCache.maxEntryFraction = 1
            harness.cache.memoryCache.costLimit = Self.side * Self.side * 4
            for value in 0..<3 {
                harness.cache.storeImageToMemory(Image(bitmap: Self.filled(UInt8(value))), forKey: "k\(value)")
            }
            #expect(pool.statistics.heldCount > 0)
            harness.cache.clearMemory()
            #expect(pool.statistics.heldCount == 0)
            #expect(!harness.cache.memoryCache.contains(forKey: "k2"))
        }
    }

    @Test func anArrayHandedToABitmapIsNeverPooled() {
        let pool = BitmapPool(byteLimit: 4 << 20)
        BitmapPool.$current.withValue(pool) {
            let bytes = [UInt8](repeating: 6, count: Self.side * Self.side * 4)
            var bitmap: Bitmap? = Bitmap(width: Self.side, height: Self.side, pixels: bytes)
            bitmap = nil
            #expect(pool.statistics.heldCount == 0)
            #expect(bytes.allSatisfy { $0 == 6 })
            _ = bitmap
        }
    }
}
