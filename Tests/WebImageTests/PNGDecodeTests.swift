import Foundation
import Testing
@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageLoading

@Suite("PNG decoding")
struct PNGDecodeTests {
    let coder = PNGCoder()

    func decode(_ data: Data, _ options: DecodeOptions = .default) throws -> Image {
        try coder.decode(data, options: options)
    }

    /// The colour type byte of an encoded PNG's IHDR.
    func colorType(_ data: Data) -> UInt8 { data[8 + 8 + 9] }

    @Test func roundTripRGBA() throws {
        let source = TestBitmaps.gradient(width: 37, height: 23, alpha: true)
        let data = try coder.encode(Image(bitmap: source), as: .png, options: .default)
        #expect(ImageFormat.detect(data) == .png)
        #expect(colorType(data) == PNGFixtures.rgba)
        let image = try decode(data)
        #expect(image.bitmap == source)
        #expect(image.format == .png)
        #expect(!image.isAnimated)
    }

    @Test func roundTripRGB() throws {
        let source = TestBitmaps.gradient(width: 40, height: 30)
        let data = try coder.encode(Image(bitmap: source), as: .png, options: .default)
        #expect(colorType(data) == PNGFixtures.rgb)
        #expect(try decode(data).bitmap == source)
    }

    @Test func paletteWithTransparency() throws {
        let plte: [UInt8] = [255, 0, 0, 0, 255, 0, 0, 0, 255]
        let trns: [UInt8] = [255, 128, 0]
        let data = PNGFixtures.png(width: 3, height: 2, colorType: PNGFixtures.indexed,
                                   rows: [[0, 1, 2], [2, 1, 0]],
                                   extraChunks: [(PNGChunks.PLTE, plte), (PNGChunks.tRNS, trns)])
        let bitmap = try decode(data).bitmap
        #expect(bitmap.pixel(x: 0, y: 0) == RGBA(r: 255, g: 0, b: 0, a: 255))
        #expect(bitmap.pixel(x: 1, y: 0) == RGBA(r: 0, g: 255, b: 0, a: 128))
        #expect(bitmap.pixel(x: 2, y: 0).a == 0)
        #expect(bitmap.pixel(x: 2, y: 1) == RGBA(r: 255, g: 0, b: 0, a: 255))
    }

    @Test func twoBitPalette() throws {
        let plte: [UInt8] = [0, 0, 0, 255, 255, 255, 10, 20, 30, 40, 50, 60]
        // Indices 0,1,2,3 packed two bits each into one byte.
        let data = PNGFixtures.png(width: 4, height: 1, depth: 2, colorType: PNGFixtures.indexed,
                                   rows: [[0b00_01_10_11]], extraChunks: [(PNGChunks.PLTE, plte)])
        let bitmap = try decode(data).bitmap
        #expect(bitmap.pixel(x: 0, y: 0) == .black)
        #expect(bitmap.pixel(x: 1, y: 0) == .white)
        #expect(bitmap.pixel(x: 3, y: 0) == RGBA(r: 40, g: 50, b: 60))
    }

    @Test func grayscale() throws {
        let data = PNGFixtures.png(width: 3, height: 1, colorType: PNGFixtures.gray, rows: [[0, 100, 255]])
        let bitmap = try decode(data).bitmap
        #expect(bitmap.pixel(x: 1, y: 0) == RGBA(r: 100, g: 100, b: 100))
        #expect(bitmap.pixel(x: 2, y: 0) == .white)
    }

    @Test func grayscaleWithColorKey() throws {
        let data = PNGFixtures.png(width: 2, height: 1, colorType: PNGFixtures.gray, rows: [[7, 9]],
                                   extraChunks: [(PNGChunks.tRNS, [0, 7])])
        let bitmap = try decode(data).bitmap
        #expect(bitmap.pixel(x: 0, y: 0).a == 0)
        #expect(bitmap.pixel(x: 1, y: 0) == RGBA(r: 9, g: 9, b: 9))
    }

    @Test func grayAlpha() throws {
        let data = PNGFixtures.png(width: 2, height: 1, colorType: PNGFixtures.grayAlpha, rows: [[50, 200, 250, 0]])
        let bitmap = try decode(data).bitmap
        #expect(bitmap.pixel(x: 0, y: 0) == RGBA(r: 50, g: 50, b: 50, a: 200))
        #expect(bitmap.pixel(x: 1, y: 0).a == 0)
    }

    @Test func sixteenBit() throws {
        let data = PNGFixtures.png(width: 1, height: 2, depth: 16, colorType: PNGFixtures.rgba,
                                   rows: [[0xFF, 0xFF, 0x80, 0x00, 0x00, 0x00, 0xFF, 0xFF],
                                          [0x12, 0x34, 0x56, 0x78, 0x9A, 0xBC, 0x00, 0x00]])
        let bitmap = try decode(data).bitmap
        #expect(bitmap.pixel(x: 0, y: 0).isClose(to: RGBA(r: 255, g: 128, b: 0, a: 255), tolerance: 1))
        #expect(bitmap.pixel(x: 0, y: 1).isClose(to: RGBA(r: 0x12, g: 0x56, b: 0x9A, a: 0), tolerance: 1))
    }

    @Test func sixteenBitRGBWithColorKey() throws {
        let data = PNGFixtures.png(width: 2, height: 1, depth: 16, colorType: PNGFixtures.rgb,
                                   rows: [[0, 1, 0, 2, 0, 3, 0xFF, 0xFF, 0, 0, 0, 0]],
                                   extraChunks: [(PNGChunks.tRNS, [0, 1, 0, 2, 0, 3])])
        let bitmap = try decode(data).bitmap
        #expect(bitmap.pixel(x: 0, y: 0).a == 0)
        #expect(bitmap.pixel(x: 1, y: 0) == RGBA(r: 255, g: 0, b: 0))
    }

    @Test func interlacedMatchesPlain() throws {
        let source = TestBitmaps.gradient(width: 13, height: 11, alpha: true)
        #expect(try decode(PNGFixtures.interlacedPNG(source)).bitmap == source)
    }

    /// Images so small that the last Adam7 passes are empty: 1×1 (PngSuite's `s01i3p01`) up to
    /// sizes where every pass has pixels.
    @Test(arguments: [(1, 1), (1, 2), (2, 1), (3, 3), (8, 1), (1, 5), (5, 5), (8, 8)])
    func tinyInterlacedImagesDecodeWhole(width: Int, height: Int) throws {
        let source = TestBitmaps.gradient(width: width, height: height)
        #expect(try decode(PNGFixtures.interlacedPNG(source)).bitmap == source)
    }

    @Test func thumbnailSizes() throws {
        let data = PNGFixtures.png(width: 100, height: 200, rows: PNGFixtures.rows(of: TestBitmaps.quadrants(width: 100, height: 200)))
        let thumb = try decode(data, DecodeOptions(thumbnailPixelSize: PixelSize(width: 150, height: 150)))
        #expect(thumb.pixelSize == PixelSize(width: 75, height: 150))
        #expect(thumb.isThumbnail)
        #expect(TestBitmaps.isUprightQuadrants(thumb.bitmap))
        let stretched = try decode(data, DecodeOptions(thumbnailPixelSize: PixelSize(width: 50, height: 50),
                                                       preserveAspectRatio: false))
        #expect(stretched.pixelSize == PixelSize(width: 50, height: 50))
        let big = try decode(data, DecodeOptions(thumbnailPixelSize: PixelSize(width: 400, height: 400)))
        #expect(big.pixelSize == PixelSize(width: 100, height: 200))
        let limited = try decode(data, DecodeOptions(scaleDownLimitBytes: 100 * 200))
        #expect(limited.pixelSize.area * 4 <= 100 * 200)
        #expect(limited.width < 100 && limited.width > 30)
    }

    @Test(arguments: EXIFOrientation.allCases)
    func exifOrientation(_ orientation: EXIFOrientation) throws {
        let upright = TestBitmaps.quadrants(width: 32, height: 16)
        let stored = TestBitmaps.stored(upright, for: orientation)
        let data = PNGFixtures.png(width: stored.width, height: stored.height, rows: PNGFixtures.rows(of: stored),
                                   extraChunks: [(PNGChunks.eXIf, TestBitmaps.exifTIFF(orientation: orientation))])
        let image = try decode(data)
        #expect(image.pixelSize == PixelSize(width: 32, height: 16))
        #expect(image.bitmap == upright)
        let thumb = try decode(data, DecodeOptions(thumbnailPixelSize: PixelSize(width: 16, height: 16)))
        #expect(thumb.pixelSize == PixelSize(width: 16, height: 8))
        #expect(TestBitmaps.isUprightQuadrants(thumb.bitmap))
    }

    @Test func bombRefusedFromHeader() throws {
        let header = PNGFixtures.ihdr(30000, 30000)
        let data = PNGFixtures.png(header: header, zlib: PNGFixtures.zlibStored([0, 0, 0, 0, 0]))
        #expect(coder.canDecode(data))
        let error = try #require(throws: WebImageError.self) { try decode(data) }
        #expect(error.code == .imageTooLarge)
        // Even a thumbnail request is refused: the PNG decoder needs the full canvas in memory.
        let thumbError = try #require(throws: WebImageError.self) {
            try decode(data, DecodeOptions(thumbnailPixelSize: PixelSize(width: 10, height: 10)))
        }
        #expect(thumbError.code == .imageTooLarge)
    }

    @Test func customLimits() throws {
        let data = PNGFixtures.png(width: 20, height: 20, rows: PNGFixtures.rows(of: PNGFixtures.solid(20, 20, .white)))
        let error = try #require(throws: WebImageError.self) {
            try decode(data, DecodeOptions(limits: DecodeLimits(maxPixels: 100)))
        }
        #expect(error.code == .imageTooLarge)
    }

    @Test func badDataIsRefused() throws {
        let good = PNGFixtures.png(width: 16, height: 16, rows: PNGFixtures.rows(of: TestBitmaps.quadrants(width: 16, height: 16)))
        var samples: [Data] = [Data(), Data(PNGWriter.signature), TestBitmaps.noise(count: 4096, seed: 7)]
        samples.append(Data(PNGWriter.signature) + TestBitmaps.noise(count: 500, seed: 3))
        for cut in [20, 40, good.count / 2, good.count - 40] { samples.append(good.prefix(cut)) }
        var corrupt = good
        corrupt[good.count / 2] ^= 0x55 // breaks the IDAT CRC
        samples.append(corrupt)
        for sample in samples {
            let error = try #require(throws: WebImageError.self) { try decode(sample) }
            #expect(error.code == .badImageData, "\(sample.count) bytes: \(error)")
        }
    }

    /// libspng stops reading at the end of the compressed stream, before the last IDAT's CRC:
    /// a file whose only fault is that CRC (PngSuite's xcsn0g01) must still be refused.
    @Test func wrongImageDataChecksumIsRefused() throws {
        var bytes = [UInt8](PNGFixtures.png(width: 4, height: 4, rows: PNGFixtures.rows(of: TestBitmaps.quadrants(width: 4, height: 4))))
        let idat = try #require(bytes.withUnsafeBufferPointer { b in PNGChunks(b).first { $0.type == PNGChunks.IDAT } })
        #expect(try decode(Data(bytes)).pixelSize == PixelSize(width: 4, height: 4))
        let crc = idat.dataOffset + idat.length
        bytes.replaceSubrange(crc..<crc + 4, with: Array("CSUM".utf8))
        let error = try #require(throws: WebImageError.self) { try decode(Data(bytes)) }
        #expect(error.code == .badImageData)
        #expect(error.message.contains("checksum"), "\(error)")
    }

    /// A wrong CRC on an ancillary chunk after the image data is skipped, as libpng does.
    @Test func wrongAncillaryChecksumIsSkipped() throws {
        var writer = PNGWriter()
        writer.appendChunk(PNGChunks.IHDR, PNGFixtures.ihdr(2, 1))
        writer.appendChunk(PNGChunks.IDAT, PNGFixtures.zlibStored(PNGFixtures.scanlines([[1, 2, 3, 255, 4, 5, 6, 255]])))
        writer.appendChunk(PNGChunks.fourCC("tEXt"), Array("Comment\u{0}hello".utf8))
        writer.appendChunk(PNGChunks.IEND, [])
        var bytes = writer.bytes
        let text = try #require(bytes.withUnsafeBufferPointer { b in PNGChunks(b).first { $0.type == PNGChunks.fourCC("tEXt") } })
        bytes[text.dataOffset + text.length] ^= 0xFF
        let image = try decode(Data(bytes))
        #expect(image.bitmap.pixel(x: 1, y: 0) == RGBA(r: 4, g: 5, b: 6))
    }

    @Test func chunkChecksum() {
        #expect(CRC32.checksum(Array("123456789".utf8)) == 0xCBF4_3926)
        #expect(CRC32.checksum(Array("IEND".utf8)) == 0xAE42_6082)
    }

    @Test func canDecodeAndEncode() {
        let png = PNGFixtures.png(width: 1, height: 1, rows: [[1, 2, 3, 4]])
        #expect(coder.canDecode(png))
        #expect(coder.canDecodeIncrementally(png))
        #expect(!coder.canDecode(Data([0xFF, 0xD8, 0xFF, 0xE0])))
        #expect(coder.canEncode(to: .png) && coder.canEncode(to: .apng))
        #expect(!coder.canEncode(to: .jpeg))
    }

    @Test func encodeHonoursMaxPixelSize() throws {
        let source = TestBitmaps.quadrants(width: 80, height: 40)
        let data = try coder.encode(Image(bitmap: source), as: .png,
                                    options: EncodeOptions(maxPixelSize: PixelSize(width: 20, height: 20)))
        let image = try decode(data)
        #expect(image.pixelSize == PixelSize(width: 20, height: 10))
        #expect(TestBitmaps.isUprightQuadrants(image.bitmap))
    }
}
