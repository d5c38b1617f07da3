import CAVIF
import Foundation
import Testing
@testable import WebImageCodecs

/// The `clap` crop on a 4:2:0 image, at even and at odd positions: libavif 0.11 refuses a crop
/// that starts on an odd row or column of subsampled chroma, libheif applies it; the decoder
/// crops the converted RGB pixels then (the conformance suite's `kimono.crop.avif`, 385×330 at
/// row 39 of a 722×1024 picture, is such a file).
///
/// The files are made here with libavif: 16×16, AV1 lossless, grey levels Y(x, y) = 40 + 10x + y
/// with neutral chroma, full range and the BT.601 matrix, so each decoded pixel is its Y.
@Suite("AVIF clean aperture")
struct AVIFCleanApertureTests {
    static let side = 16

    static func level(x: Int, y: Int) -> UInt8 { UInt8(40 + 10 * x + y) }

    /// The 16×16 file with a `clap` box selecting `width`×`height` pixels from (`x`, `y`).
    static func croppedAVIF(x: Int, y: Int, width: Int, height: Int) throws -> Data {
        let image = try #require(avifImageCreate(UInt32(side), UInt32(side), 8, AVIF_PIXEL_FORMAT_YUV420))
        defer { avifImageDestroy(image) }
        image.pointee.yuvRange = AVIF_RANGE_FULL
        image.pointee.colorPrimaries = UInt16(AVIF_COLOR_PRIMARIES_BT709)
        image.pointee.transferCharacteristics = UInt16(AVIF_TRANSFER_CHARACTERISTICS_SRGB)
        image.pointee.matrixCoefficients = UInt16(AVIF_MATRIX_COEFFICIENTS_BT601)
        #expect(avifImageAllocatePlanes(image, AVIF_PLANES_YUV.rawValue) == AVIF_RESULT_OK)
        let planes = image.pointee.yuvPlanes, rowBytes = image.pointee.yuvRowBytes
        for row in 0..<side {
            for column in 0..<side { planes.0![row * Int(rowBytes.0) + column] = level(x: column, y: row) }
        }
        for row in 0..<side / 2 {
            for column in 0..<side / 2 {
                planes.1![row * Int(rowBytes.1) + column] = 128
                planes.2![row * Int(rowBytes.2) + column] = 128
            }
        }
        // ISO 14496-12's clean aperture: a size and the offset of its centre from the image's,
        // (x + (width - 1) / 2) - (side - 1) / 2, written in halves.
        let horizontalHalves = 2 * x + width - side, verticalHalves = 2 * y + height - side
        image.pointee.transformFlags |= AVIF_TRANSFORM_CLAP.rawValue
        image.pointee.clap = avifCleanApertureBox(
            widthN: UInt32(width), widthD: 1, heightN: UInt32(height), heightD: 1,
            horizOffN: UInt32(bitPattern: Int32(horizontalHalves)), horizOffD: 2,
            vertOffN: UInt32(bitPattern: Int32(verticalHalves)), vertOffD: 2)

        let encoder = try #require(avifEncoderCreate())
        defer { avifEncoderDestroy(encoder) }
        encoder.pointee.maxThreads = 1
        encoder.pointee.speed = 8
        encoder.pointee.minQuantizer = Int32(AVIF_QUANTIZER_LOSSLESS)
        encoder.pointee.maxQuantizer = Int32(AVIF_QUANTIZER_LOSSLESS)
        var output = avifRWData()
        defer { avifRWDataFree(&output) }
        #expect(avifEncoderWrite(encoder, image, &output) == AVIF_RESULT_OK)
        return Data(bytes: try #require(output.data), count: output.size)
    }

    /// Even (2, 4): the chroma planes are cut before conversion; odd (3, 5) and mixed (4, 3):
    /// libavif 0.11 refuses the rectangle for 4:2:0, and the RGB pixels are cut instead.
    @Test(arguments: [(2, 4), (3, 5), (4, 3)])
    func theCleanApertureIsShownWhereverItStarts(_ origin: (x: Int, y: Int)) throws {
        let data = try Self.croppedAVIF(x: origin.x, y: origin.y, width: 6, height: 7)
        let coder = AVIFCoder()
        let shown = PixelSize(width: 6, height: 7)
        #expect(coder.imageInfo(for: data)?.pixelSize == shown)
        let image = try coder.decode(data, options: .default)
        #expect(image.pixelSize == shown)
        var worst = 0
        for y in 0..<7 {
            for x in 0..<6 {
                let pixel = image.bitmap.pixel(x: x, y: y)
                let expected = Int(Self.level(x: origin.x + x, y: origin.y + y))
                worst = max(worst, abs(Int(pixel.r) - expected), abs(Int(pixel.g) - expected), abs(Int(pixel.b) - expected))
                #expect(pixel.a == 255)
            }
        }
        #expect(worst <= 1, "largest difference from the source levels: \(worst)")
    }
}
