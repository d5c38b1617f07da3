import Foundation
import WebImageCodecs

/// The limits every fuzz target decodes with: small enough that the fuzzer spends its time on
/// parsing paths instead of legal multi-megapixel images, large enough for every seed.
let fuzzLimits = DecodeLimits(maxPixels: 4_000_000, maxTotalBytes: 128 << 20, maxFrames: 256)

/// The decode option sets each input is run through: full size, a thumbnail box (both aspect
/// modes) and first-frame-only with a byte budget. The box is derived from the input so the
/// fuzzer can steer it.
func fuzzDecodeOptions(for input: UnsafeRawBufferPointer) -> [DecodeOptions] {
    let last = input.last.map(Int.init) ?? 0
    let box = PixelSize(width: 1 + last % 97, height: 1 + input.count % 89)
    return [
        DecodeOptions(limits: fuzzLimits),
        DecodeOptions(thumbnailPixelSize: box, preserveAspectRatio: last & 1 == 0, limits: fuzzLimits),
        DecodeOptions(firstFrameOnly: true, scaleDownLimitBytes: 64 << 10, limits: fuzzLimits),
    ]
}

/// Stops the process (a libFuzzer finding) with `message` when `condition` is false.
func require(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String) {
    if !condition() {
        fatalError("fuzz invariant broken: \(message())")
    }
}

/// Checks what every decoded image must satisfy: frames of one positive size, each bitmap
/// exactly width*height*4 bytes, within the limits, honouring firstFrameOnly, a thumbnail box
/// and a byte budget, and tagged with one of `formats`.
func checkImage(_ image: Image, options: DecodeOptions, formats: Set<ImageFormat>) {
    let size = image.pixelSize
    require(image.frameCount > 0, "an image without frames")
    require(size.width > 0 && size.height > 0, "an empty image \(size)")
    require(size.area <= options.limits.maxPixels, "\(size) passes maxPixels \(options.limits.maxPixels)")
    require(image.frameCount <= options.limits.maxFrames, "\(image.frameCount) frames pass maxFrames")
    let framesBytes = size.area * 4 * image.frameCount
    require(framesBytes <= options.limits.maxTotalBytes, "\(framesBytes) bytes pass maxTotalBytes")
    // Lazily decoded frames are decoded one at a time here; a damaged frame ends the animation
    // with a decoding error, as a player would see it.
    for index in 0..<image.frameCount {
        let frame: ImageFrame
        do {
            frame = try image.frame(at: index)
        } catch {
            checkDecodeError(error)
            break
        }
        let bitmap = frame.bitmap
        require(bitmap.size == size, "frame \(index) is \(bitmap.size), frame 0 is \(size)")
        require(bitmap.pixels.count == bitmap.width * bitmap.height * 4,
                "frame \(index) has \(bitmap.pixels.count) bytes for \(bitmap.size)")
        require(frame.duration.isFinite && frame.duration >= 0, "frame \(index) lasts \(frame.duration) s")
    }
    require(formats.contains(image.format), "format \(image.format), expected one of \(formats)")
    require(image.loopCount >= 0, "loop count \(image.loopCount)")
    if options.firstFrameOnly {
        require(image.frameCount == 1, "firstFrameOnly gave \(image.frameCount) frames")
    }
    if let budget = options.scaleDownLimitBytes {
        // Each side is at least 1 pixel, so a sliver (1 x n) may pass a budget it cannot meet.
        require(framesBytes <= budget || size.width == 1 || size.height == 1,
                "\(framesBytes) bytes (\(size)) pass the budget \(budget)")
    } else if let box = options.thumbnailPixelSize, !box.isEmpty {
        require(size.width <= box.width && size.height <= box.height, "thumbnail \(size) passes the box \(box)")
    }
}

/// Checks that a decode failure is a ``WebImageError`` with a decoding code and a message.
func checkDecodeError(_ error: any Error) {
    guard let error = error as? WebImageError else {
        fatalError("fuzz invariant broken: a decoder threw \(type(of: error)): \(error)")
    }
    let allowed: Set<WebImageError.Code> = [.badImageData, .imageTooLarge, .unsupportedFormat]
    require(allowed.contains(error.code), "unexpected error code \(error.code.name): \(error.message)")
    require(!error.message.isEmpty, "an error without a message")
}

/// Decodes `data` with `coder` under every option set, checking the image or the error.
func fuzzDecode(_ coder: any ImageCoding, _ input: UnsafeRawBufferPointer, formats: Set<ImageFormat>) {
    let data = Data(input)
    for options in fuzzDecodeOptions(for: input) {
        do {
            let image = try coder.decode(data, options: options)
            checkImage(image, options: options, formats: formats)
        } catch {
            checkDecodeError(error)
        }
    }
}

/// Reads `input`'s header with `coder`: a positive size in one of `formats`, or nil.
func fuzzHeader(_ coder: any ImageCoding, _ input: UnsafeRawBufferPointer, formats: Set<ImageFormat>) {
    guard let info = coder.imageInfo(for: Data(input)) else { return }
    require(info.pixelSize.width > 0 && info.pixelSize.height > 0, "header size \(info.pixelSize)")
    require(formats.contains(info.format), "header format \(info.format), expected one of \(formats)")
    if let frames = info.frameCount { require(frames >= 1, "header frame count \(frames)") }
}
