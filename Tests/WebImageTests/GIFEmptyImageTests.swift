import Foundation
import Testing
@testable import WebImageCodecs

/// GIFs that draw nothing: a file with no image at all (GIF's grammar allows it), and sub-images
/// with zero width or height, whose colour table or raster may be missing. The public GIF test
/// suite (pygif's `no-data`, `image-zero-width`, `image-zero-height`, `image-zero-size`) expects
/// each to show its logical screen, transparent. The bytes are written here by hand.
@Suite("GIF empty images")
struct GIFEmptyImageTests {
    let coder = GIFCoder()

    static func le(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8)] }

    /// "GIF89a", a `width`×`height` screen and a 2-colour global table (white, red).
    static func header(width: Int = 1, height: Int = 1) -> [UInt8] {
        Array("GIF89a".utf8) + le(width) + le(height) + [0x80, 0, 0] + [255, 255, 255, 255, 0, 0]
    }

    /// A graphics control extension with `delay` centiseconds.
    static func control(delay: Int) -> [UInt8] { [0x21, 0xF9, 4, 0] + le(delay) + [0, 0] }

    /// A descriptor of a `width`×`height` sub-image at the origin, `packed` flags, no raster.
    static func descriptor(width: Int, height: Int, packed: UInt8 = 0) -> [UInt8] {
        [0x2C] + le(0) + le(0) + le(width) + le(height) + [packed]
    }

    /// A 1×1 sub-image painting colour index 1 (red): code size 2, then clear, 1, end of data.
    static let redPixel: [UInt8] = descriptor(width: 1, height: 1) + [2, 2, 0x4C, 0x01, 0]

    func expectTransparent(_ bitmap: Bitmap) {
        for y in 0..<bitmap.height {
            for x in 0..<bitmap.width { #expect(bitmap.pixel(x: x, y: y).a == 0) }
        }
    }

    @Test func aFileWithNoImageIsItsScreenTransparent() throws {
        let gif = Data(Self.header(width: 3, height: 2) + [0x3B])
        for options in [DecodeOptions.default, DecodeOptions(firstFrameOnly: true)] {
            let image = try coder.decode(gif, options: options)
            #expect(image.pixelSize == PixelSize(width: 3, height: 2))
            #expect(image.frameCount == 1)
            expectTransparent(image.bitmap)
        }
        // Without the trailer the file is cut short, not empty.
        #expect(CodecFixtures.errorCode { try coder.decode(Data(Self.header(width: 3, height: 2)), options: .default) }
            == .badImageData)
    }

    /// As in pygif's suite: a zero-width descriptor and then the trailer (no raster at all); a
    /// zero-height one announcing a local colour table the file does not hold; both zero with
    /// a raster that is all there.
    @Test(arguments: [
        GIFEmptyImageTests.descriptor(width: 0, height: 1) + [0x3B],
        GIFEmptyImageTests.descriptor(width: 1, height: 0, packed: 0x80) + [0x3B],
        GIFEmptyImageTests.descriptor(width: 0, height: 0) + [2, 0, 0x3B],
    ])
    func aZeroSizeSubImageDrawsNothing(_ record: [UInt8]) throws {
        let image = try coder.decode(Data(Self.header() + record), options: .default)
        #expect(image.pixelSize == PixelSize(width: 1, height: 1))
        #expect(image.frameCount == 1)
        expectTransparent(image.bitmap)
    }

    /// Between two frames, an empty sub-image with its own delay is a frame showing the canvas
    /// unchanged, decoded now or on request alike.
    @Test func anEmptySubImageBetweenFramesKeepsTheCanvas() throws {
        let greenPixel = Self.descriptor(width: 1, height: 1, packed: 0x80) + [0, 0, 255, 0, 255, 0]
            + [2, 2, 0x4C, 0x01, 0]
        let bytes = Self.header() + Self.control(delay: 10) + Self.redPixel
            + Self.control(delay: 10) + Self.descriptor(width: 0, height: 0) + [2, 0]
            + Self.control(delay: 10) + greenPixel + [0x3B]
        for preloads in [false, true] {
            let image = try coder.decode(Data(bytes), options: DecodeOptions(preloadsAllFrames: preloads))
            let frames = try image.allFrames()
            #expect(frames.map { $0.bitmap.pixel(x: 0, y: 0) } == [TestBitmaps.red, TestBitmaps.red, TestBitmaps.green],
                    "preloaded: \(preloads)")
        }
    }
}

/// A raster whose LZW codes start wider than 8-bit pixels need (pygif's `max-codes`, minimum code
/// size 11): giflib refuses it, so it is refused as unsupported, saying why; after a complete
/// frame it ends the animation as damage does.
@Suite("GIF wide LZW codes")
struct GIFWideCodeSizeTests {
    typealias Bytes = GIFEmptyImageTests

    /// A 1×1 sub-image whose raster declares minimum code size `size` (one data byte).
    static func pixel(codeSize size: UInt8) -> [UInt8] {
        Bytes.descriptor(width: 1, height: 1) + [size, 1, 0, 0]
    }

    @Test(arguments: [9, 11] as [UInt8])
    func aMinimumCodeSizeOver8IsUnsupported(_ size: UInt8) {
        let gif = Data(Bytes.header() + Self.pixel(codeSize: size) + [0x3B])
        let error = CodecFixtures.error { try GIFCoder().decode(gif, options: .default) }
        #expect(error?.code == .unsupportedFormat)
        #expect(error?.message.contains("LZW minimum code size of \(size)") == true, "\(String(describing: error))")
    }

    @Test func afterACompleteFrameItEndsTheAnimation() throws {
        let gif = Data(Bytes.header() + Bytes.control(delay: 10) + Bytes.redPixel
            + Bytes.control(delay: 10) + Self.pixel(codeSize: 10) + [0x3B])
        for preloads in [false, true] {
            let image = try GIFCoder().decode(gif, options: DecodeOptions(preloadsAllFrames: preloads))
            #expect(image.frameCount == 1, "preloaded: \(preloads)")
            #expect(image.bitmap.pixel(x: 0, y: 0) == TestBitmaps.red)
        }
    }
}
