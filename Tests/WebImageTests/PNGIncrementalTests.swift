import Foundation
import Testing
@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageLoading

@Suite("PNG incremental decoding")
struct PNGIncrementalTests {
    let coder = PNGCoder()
    let source = TestBitmaps.gradient(width: 24, height: 20, alpha: true)

    @Test func partialRowsThenFullImage() throws {
        let data = PNGFixtures.png(width: 24, height: 20, rows: PNGFixtures.rows(of: source))
        let decoder = coder.makeIncrementalDecoder(options: .default)
        decoder.update(data.prefix(30), finished: false)
        #expect(try decoder.currentImage() == nil)

        // Signature, IHDR, IDAT header and zlib/stored-block headers take 8+25+8+2+5 bytes;
        // each row is 1 filter byte + 96 pixel bytes. Cut partway into row 10.
        let cut = 48 + 10 * 97 + 40
        decoder.update(data.prefix(cut), finished: false)
        let partial = try #require(try decoder.currentImage())
        #expect(partial.isPartial)
        #expect(partial.pixelSize == source.size)
        let rowBytes = source.bytesPerRow
        let decodedRows = (0..<source.height).filter { y in
            partial.bitmap.pixels[y * rowBytes..<(y + 1) * rowBytes] == source.pixels[y * rowBytes..<(y + 1) * rowBytes]
        }
        #expect(decodedRows.count == 10)
        #expect(decodedRows == Array(0..<decodedRows.count))
        #expect(partial.bitmap.pixel(x: 5, y: 19) == .clear)

        decoder.update(data, finished: true)
        let full = try #require(try decoder.currentImage())
        #expect(!full.isPartial)
        #expect(full.bitmap == source)
    }

    @Test func smallGrowthReusesThePartialImage() throws {
        let data = PNGFixtures.png(width: 24, height: 20, rows: PNGFixtures.rows(of: source))
        let decoder = coder.makeIncrementalDecoder(options: .default)
        decoder.update(data.prefix(48 + 12 * 97), finished: false)
        let first = try #require(try decoder.currentImage())
        decoder.update(data.prefix(48 + 12 * 97 + 1), finished: false)
        let second = try #require(try decoder.currentImage())
        #expect(first === second)
    }

    @Test func interlacedWaitsUntilFinished() throws {
        let data = PNGFixtures.interlacedPNG(source)
        let decoder = coder.makeIncrementalDecoder(options: .default)
        decoder.update(data.prefix(data.count * 3 / 4), finished: false)
        #expect(try decoder.currentImage() == nil)
        decoder.update(data, finished: true)
        #expect(try decoder.currentImage()?.bitmap == source)
    }

    @Test func anAnimationShowsItsFirstFrameUntilASecondHasArrived() throws {
        let frames = [PNGFixtures.Frame(bitmap: source), PNGFixtures.Frame(bitmap: PNGFixtures.solid(24, 20, .white))]
        let data = PNGFixtures.apng(canvas: source.size, frames: frames)
        let decoder = coder.makeIncrementalDecoder(options: .default)
        decoder.update(data.prefix(data.count * 3 / 4), finished: false)
        let first = try #require(try decoder.currentImage())
        #expect(first.isPartial && first.frameCount == 1 && first.bitmap == source)
        decoder.update(data, finished: true)
        #expect(try decoder.currentImage()?.frames.count == 2)
    }

    @Test func anAPNGWhoseDefaultImageIsNotAFrameShowsNothingUntilTwoFramesArrive() throws {
        let frames = [PNGFixtures.Frame(bitmap: PNGFixtures.solid(24, 20, .white)),
                      PNGFixtures.Frame(bitmap: source), PNGFixtures.Frame(bitmap: source)]
        let data = PNGFixtures.apng(canvas: source.size, frames: frames, defaultImage: PNGFixtures.solid(24, 20, .black))
        let decoder = coder.makeIncrementalDecoder(options: .default)
        decoder.update(data.prefix(data.count / 3), finished: false)
        #expect(try decoder.currentImage() == nil)
        decoder.update(data.prefix(data.count - 13), finished: false)
        let arrived = try #require(try decoder.currentImage())
        #expect(arrived.isPartial && arrived.frameCount == 2 && arrived.bitmap.pixel(x: 0, y: 0) == .white)
    }

    @Test func badFinishedDataThrows() throws {
        let data = PNGFixtures.png(width: 24, height: 20, rows: PNGFixtures.rows(of: source))
        let decoder = coder.makeIncrementalDecoder(options: .default)
        decoder.update(data.prefix(data.count / 2), finished: true)
        let error = try #require(throws: WebImageError.self) { try decoder.currentImage() }
        #expect(error.code == .badImageData)
    }

    @Test func partialHonoursThumbnailAndOrientation() throws {
        let upright = TestBitmaps.quadrants(width: 32, height: 16)
        let stored = TestBitmaps.stored(upright, for: .right)
        let data = PNGFixtures.png(width: stored.width, height: stored.height, rows: PNGFixtures.rows(of: stored),
                                   extraChunks: [(PNGChunks.eXIf, TestBitmaps.exifTIFF(orientation: .right))])
        let options = DecodeOptions(thumbnailPixelSize: PixelSize(width: 16, height: 16))
        let decoder = coder.makeIncrementalDecoder(options: options)
        decoder.update(data.prefix(data.count - 200), finished: false)
        let partial = try #require(try decoder.currentImage())
        #expect(partial.isPartial && partial.pixelSize == PixelSize(width: 16, height: 8))
        decoder.update(data, finished: true)
        let full = try #require(try decoder.currentImage())
        #expect(full.pixelSize == PixelSize(width: 16, height: 8))
        #expect(TestBitmaps.isUprightQuadrants(full.bitmap))
    }
}
