import Foundation
import WebImageCodecs

/// Incremental decoding through ``CodersManager``'s routing decoder, the bytes arriving in
/// chunks whose sizes come from the first two input bytes (a seed for a small generator); the
/// rest of the input is the image. Partial images must be well-formed and marked partial, the
/// finished result must match a one-shot decode's outcome.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzIncremental(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let raw = UnsafeRawBufferPointer(start: bytes, count: count)
    guard raw.count >= 2 else { return 0 }
    var chunker = ChunkSizes(seed: UInt16(raw[0]) << 8 | UInt16(raw[1]))
    let image = Data(raw[2...])
    let options = fuzzDecodeOptions(for: UnsafeRawBufferPointer(rebasing: raw[2...]))[(Int(raw[0]) >> 4) % 3]
    let formats: Set<ImageFormat> = [.jpeg, .png, .apng, .gif, .webp]

    let decoder = CodersManager.shared.makeIncrementalDecoder(options: options)
    var received = 0
    while received < image.count {
        received = min(image.count, received + chunker.next())
        decoder.update(image.prefix(received), finished: false)
        do {
            if let partial = try decoder.currentImage() {
                checkPartialImage(partial, options: options, formats: formats)
            }
        } catch {
            fatalError("fuzz invariant broken: currentImage threw before the data finished: \(error)")
        }
    }
    decoder.update(image, finished: true)
    let incremental: Result<Image?, any Error> = Result { try decoder.currentImage() }
    let oneShot: Result<Image, any Error> = Result { try CodersManager.shared.decode(image, options: options) }
    switch (incremental, oneShot) {
    case (.success(let final?), .success(let whole)):
        // The finished image is whatever the one-shot decode makes (any format, SVG included);
        // only partial images are limited to the progressive formats.
        checkImage(final, options: options, formats: [whole.format])
        require(!final.isPartial, "the finished image is marked partial")
        require(final.pixelSize == whole.pixelSize && final.frameCount == whole.frameCount,
                "incremental \(final) differs from one-shot \(whole)")
    case (.success(nil), .failure(let error)), (.failure(let error), .failure):
        checkDecodeError(error)
    case (.success(nil), .success(let whole)):
        fatalError("fuzz invariant broken: finished incremental decode gave nothing, one-shot gave \(whole)")
    case (.success(let final?), .failure(let error)):
        fatalError("fuzz invariant broken: incremental gave \(final), one-shot threw \(error)")
    case (.failure(let error), .success(let whole)):
        fatalError("fuzz invariant broken: incremental threw \(error), one-shot gave \(whole)")
    }
    return 0
}

/// A partial image is marked partial and well-formed like a final one (its size may exceed a
/// thumbnail box where a decoder shows stored rows before resizing, so only the limits are checked).
private func checkPartialImage(_ image: Image, options: DecodeOptions, formats: Set<ImageFormat>) {
    require(image.isPartial, "an image shown before the data finished is not marked partial")
    var relaxed = options
    relaxed.thumbnailPixelSize = nil
    relaxed.scaleDownLimitBytes = nil
    relaxed.firstFrameOnly = false
    checkImage(image, options: relaxed, formats: formats)
}

/// Chunk sizes from a 16-bit seed: mostly small (1–64 bytes), sometimes up to 4 KiB.
private struct ChunkSizes {
    var state: UInt32

    init(seed: UInt16) { state = UInt32(seed) &* 2_654_435_761 | 1 }

    mutating func next() -> Int {
        state ^= state << 13
        state ^= state >> 17
        state ^= state << 5
        return state & 7 == 0 ? Int((state >> 8) % 4096) + 1 : Int((state >> 8) % 64) + 1
    }
}
