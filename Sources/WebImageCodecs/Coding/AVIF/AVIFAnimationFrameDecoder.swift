import CAVIF
import Foundation

/// Decodes the frames of an AVIF sequence one at a time for ``AnimatedFrames``, with a libavif
/// decoder over its own copy of the file.
///
/// libavif keeps the AV1 decoder's state between calls: the frame after the last one costs one
/// frame's decode, and any other is reached from its nearest keyframe (`avifDecoderNthImage`
/// seeks there itself). After a failure the decoder is made afresh on the next request, so a
/// damaged frame fails alone.
final class AVIFAnimationFrameDecoder: AnimationFrameDecoding {
    /// The file, copied: libavif reads it for as long as the decoder lives.
    private let bytes: UnsafeMutableBufferPointer<UInt8>
    private var decoder: UnsafeMutablePointer<avifDecoder>?
    private let stored: PixelSize
    private let storedTarget: PixelSize
    private let sizeLimit: Int
    /// The colour plan, from the first frame decoded (every frame of a track has the same
    /// colour); nil before then.
    private(set) var color: ColorManagement.Plan?
    private let options: DecodeOptions

    /// A decoder over a copy of `data` whose frames (`stored` pixels in the file) come out
    /// resized to `storedTarget` and turned upright.
    init(data: Data, stored: PixelSize, storedTarget: PixelSize, options: DecodeOptions) throws {
        bytes = .allocate(capacity: data.count)
        _ = bytes.initialize(from: data)
        self.stored = stored
        self.storedTarget = storedTarget
        self.sizeLimit = options.limits.maxPixels
        self.options = options
        do {
            decoder = try AVIFDecoder.parsedDecoder(UnsafeBufferPointer(bytes), sizeLimit: sizeLimit)
        } catch {
            bytes.deallocate()
            throw error
        }
    }

    deinit {
        if let decoder { avifDecoderDestroy(decoder) }
        bytes.deallocate()
    }

    func decodeFrame(at index: Int) throws -> Bitmap {
        let decoder = try ready()
        do {
            let image = try AVIFDecoder.decodeImage(decoder, at: index, stored: stored)
            let plan = color ?? AVIFColor.plan(image, options: options)
            color = plan
            return try AVIFAnimationDecoder.frame(image, color: plan, storedTarget: storedTarget)
        } catch {
            avifDecoderDestroy(decoder)
            self.decoder = nil
            throw error
        }
    }

    /// The decoder, parsed again when a failure dropped it.
    private func ready() throws -> UnsafeMutablePointer<avifDecoder> {
        if let decoder { return decoder }
        let fresh = try AVIFDecoder.parsedDecoder(UnsafeBufferPointer(bytes), sizeLimit: sizeLimit)
        decoder = fresh
        return fresh
    }
}
