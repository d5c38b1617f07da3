import Foundation
import Testing
import WebImage

/// The checks the fuzz targets (Fuzz/) make, for replaying their findings as tests: each input is
/// decoded full size, as a thumbnail and first-frame-only with a byte budget, and must give a
/// well-formed image within the limits or a ``WebImageError`` with a decoding code.
enum FuzzReplay {
    /// The fuzz targets' limits (Fuzz/Support/FuzzInvariants.swift).
    static let limits = DecodeLimits(maxPixels: 4_000_000, maxTotalBytes: 128 << 20, maxFrames: 256)

    /// The three option sets a fuzz target runs an input through, with a fixed thumbnail box.
    static let optionSets: [DecodeOptions] = [
        DecodeOptions(limits: limits),
        DecodeOptions(thumbnailPixelSize: PixelSize(width: 40, height: 30), limits: limits),
        DecodeOptions(firstFrameOnly: true, scaleDownLimitBytes: 64 << 10, limits: limits),
    ]

    /// Decodes `data` with `coder` under `options`; records an issue for a broken invariant and
    /// returns the outcome for further expectations.
    @discardableResult
    static func decode(_ data: Data, with coder: any ImageCoding, options: DecodeOptions,
                       formats: Set<ImageFormat>) -> Result<Image, WebImageError> {
        do {
            let image = try coder.decode(data, options: options)
            expectWellFormed(image, options: options, formats: formats)
            return .success(image)
        } catch let error as WebImageError {
            #expect([.badImageData, .imageTooLarge, .unsupportedFormat].contains(error.code), "\(error)")
            #expect(!error.message.isEmpty)
            return .failure(error)
        } catch {
            Issue.record("a decoder threw \(type(of: error)), not WebImageError: \(error)")
            return .failure(WebImageError(.badImageData, "unexpected error type"))
        }
    }

    /// The invariants of a decoded image (see docs/RELIABILITY.md, "Targets and invariants").
    static func expectWellFormed(_ image: Image, options: DecodeOptions, formats: Set<ImageFormat>) {
        let size = image.pixelSize
        #expect(size.width > 0 && size.height > 0)
        #expect(size.area <= options.limits.maxPixels)
        #expect(image.frames.count <= options.limits.maxFrames)
        #expect(image.memoryCost <= options.limits.maxTotalBytes)
        #expect(formats.contains(image.format))
        for frame in image.frames {
            #expect(frame.bitmap.size == size)
            #expect(frame.bitmap.pixels.count == frame.bitmap.width * frame.bitmap.height * 4)
        }
        if options.firstFrameOnly { #expect(image.frames.count == 1) }
        if let budget = options.scaleDownLimitBytes {
            #expect(image.memoryCost <= budget || size.width == 1 || size.height == 1)
        } else if let box = options.thumbnailPixelSize, !box.isEmpty {
            #expect(size.width <= box.width && size.height <= box.height)
        }
    }

    /// Bytes from a base64 literal (reproducers are kept inline).
    static func bytes(_ base64: String) -> Data {
        guard let data = Data(base64Encoded: base64, options: .ignoreUnknownCharacters) else {
            preconditionFailure("bad base64 in a fuzz reproducer")
        }
        return data
    }
}
