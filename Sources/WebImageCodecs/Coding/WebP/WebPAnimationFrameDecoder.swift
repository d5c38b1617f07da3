import CWebP
import Foundation

/// Decodes the frames of an animated WebP one at a time for ``AnimatedFrames`` with libwebp's
/// animation decoder, which carries the canvas from frame to frame. libwebp offers no way to
/// start at a later frame, so an earlier frame is reached by starting again from the first.
final class WebPAnimationFrameDecoder: AnimationFrameDecoding {
    /// The file, copied: libwebp's decoder reads it for as long as it lives.
    private let bytes: UnsafeMutableBufferPointer<UInt8>
    private let decoder: OpaquePointer
    private let canvas: PixelSize
    private let storedTarget: PixelSize
    private let orientation: EXIFOrientation
    private let color: ColorManagement.Plan
    private var nextIndex = 0

    init(data: Data, canvas: PixelSize, storedTarget: PixelSize, orientation: EXIFOrientation,
         color: ColorManagement.Plan) throws {
        bytes = .allocate(capacity: data.count)
        _ = bytes.initialize(from: data)
        var options = WebPAnimDecoderOptions()
        guard WebPAnimDecoderOptionsInit(&options) != 0 else {
            bytes.deallocate()
            throw WebImageError.badData("libwebp rejected its animation decoder options (version mismatch).")
        }
        options.color_mode = MODE_RGBA
        options.use_threads = 0
        var webpData = WebPData(bytes: bytes.baseAddress, size: bytes.count)
        guard let decoder = WebPAnimDecoderNew(&webpData, &options) else {
            bytes.deallocate()
            throw WebImageError.badData("The animated WebP is corrupt or truncated; libwebp could not open it.")
        }
        var info = WebPAnimInfo()
        guard WebPAnimDecoderGetInfo(decoder, &info) != 0,
              Int(info.canvas_width) == canvas.width, Int(info.canvas_height) == canvas.height else {
            WebPAnimDecoderDelete(decoder)
            bytes.deallocate()
            throw WebImageError.badData("The animated WebP's canvas does not match its header.")
        }
        self.decoder = decoder
        self.canvas = canvas
        self.storedTarget = storedTarget
        self.orientation = orientation
        self.color = color
    }

    deinit {
        WebPAnimDecoderDelete(decoder)
        bytes.deallocate()
    }

    func decodeFrame(at index: Int) throws -> Bitmap {
        if index < nextIndex {
            WebPAnimDecoderReset(decoder)
            nextIndex = 0
        }
        var pixels: UnsafeMutablePointer<UInt8>?
        while nextIndex <= index {
            var timestamp: Int32 = 0
            guard WebPAnimDecoderGetNext(decoder, &pixels, &timestamp) != 0, pixels != nil else {
                // libwebp's decoder cannot go on after a failure: start again next time.
                WebPAnimDecoderReset(decoder)
                nextIndex = 0
                throw WebImageError.badData("Frame \(index + 1) of the animated WebP could not be decoded; the data is corrupt or truncated.")
            }
            nextIndex += 1
        }
        guard let pixels else { throw WebImageError.badData("The animated WebP gave no pixels.") }
        let composed = Bitmap(width: canvas.width, height: canvas.height) { out in
            out.baseAddress!.initialize(from: pixels, count: out.count)
            color.apply(out)
        }
        return Resampler.resize(composed, to: storedTarget).applying(orientation)
    }
}
