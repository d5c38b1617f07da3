import CGIF
import Foundation

/// Decodes the frames of a GIF one at a time for ``AnimatedFrames``: the canvas is carried from
/// frame to frame (so the next frame costs one frame's decode), and an earlier frame is reached
/// by restarting at the nearest keyframe before it.
final class GIFAnimationDecoder: AnimationFrameDecoding {
    private let data: Data
    private let scan: GIFAnimationScan
    private let limits: DecodeLimits
    private let frameSize: PixelSize
    private var canvas: GIFCanvas
    private var cursor: KeyframeCursor

    init(data: Data, scan: GIFAnimationScan, limits: DecodeLimits, frameSize: PixelSize) {
        self.data = data
        self.scan = scan
        self.limits = limits
        self.frameSize = frameSize
        canvas = GIFCanvas(width: scan.canvasSize.width, height: scan.canvasSize.height)
        cursor = KeyframeCursor(isKeyframe: scan.frames.map(\.isKeyframe))
    }

    func decodeFrame(at index: Int) throws -> Bitmap {
        let plan = cursor.frames(toReach: index)
        if plan.clearsCanvas { canvas = GIFCanvas(width: scan.canvasSize.width, height: scan.canvasSize.height) }
        try data.withUnsafeBytes { bytes in
            let reader = try GIFReader(bytes: bytes)
            let drawer = GIFFrameReader(limits: limits)
            for frameIndex in plan.frames {
                for subImage in scan.frames[frameIndex].subImages {
                    if subImage.isEmpty {
                        canvas.beginFrame(in: subImage.visible, disposal: subImage.control.DisposalMode)
                        continue
                    }
                    reader.seek(to: subImage.offset)
                    var type = UNDEFINED_RECORD_TYPE
                    guard DGifGetRecordType(reader.file, &type) == GIF_OK, type == IMAGE_DESC_RECORD_TYPE,
                          DGifGetImageDesc(reader.file) == GIF_OK,
                          case .complete = try drawer.readImage(reader.file, canvas: &canvas, control: subImage.control) else {
                        throw WebImageError.badData("GIF frame \(frameIndex) could not be decoded (\(reader.lastError)); the data is damaged.")
                    }
                }
            }
        }
        cursor.reached(index)
        return Resampler.resize(canvas.bitmap, to: frameSize)
    }
}
