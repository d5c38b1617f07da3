import Foundation

/// Decodes the frames of an APNG one at a time for ``AnimatedFrames``: the canvas is carried from
/// frame to frame (blend and dispose operations applied), and an earlier frame is reached by
/// restarting at the nearest frame that needs no predecessor.
final class APNGAnimationDecoder: AnimationFrameDecoding {
    private let data: Data
    private let apng: APNGStructure
    private let limits: DecodeLimits
    private let color: ColorManagement.Plan
    private let orientation: EXIFOrientation
    private let storedTarget: PixelSize
    private var composer: APNGComposer
    private var cursor: KeyframeCursor

    init(data: Data, apng: APNGStructure, options: DecodeOptions, color: ColorManagement.Plan,
         orientation: EXIFOrientation) {
        self.data = data
        self.apng = apng
        self.limits = options.limits
        self.color = color
        self.orientation = orientation
        storedTarget = DecodedOutput.storedTarget(apng.canvas, orientation: orientation, options: options,
                                                  frameCount: apng.frames.count)
        cursor = KeyframeCursor(isKeyframe: Self.keyframes(apng))
        composer = APNGComposer(canvas: apng.canvas)
    }

    /// The frame's size once resized and turned upright.
    var frameSize: PixelSize {
        orientation.turning(storedTarget)
    }

    func decodeFrame(at index: Int) throws -> Bitmap {
        let plan = cursor.frames(toReach: index)
        if plan.clearsCanvas { composer = APNGComposer(canvas: apng.canvas) }
        var composed: Bitmap?
        try data.withUnsafeBytes { raw in
            let bytes = raw.bindMemory(to: UInt8.self)
            for frameIndex in plan.frames {
                let frame = apng.frames[frameIndex]
                let pixels = try APNGDecoder.decodeFrame(frame, index: frameIndex, of: apng, in: bytes,
                                                         limits: limits, color: color)
                composed = composer.draw(pixels, control: frame.control)
            }
        }
        cursor.reached(index)
        return DecodedOutput.finish(composed!, storedTarget: storedTarget, orientation: orientation)
    }

    /// Which frames start from a fully known (transparent) canvas: the first; one after a frame
    /// that cleared the whole canvas; one that replaces every pixel and is not restored later.
    private static func keyframes(_ apng: APNGStructure) -> [Bool] {
        let canvas = apng.canvas
        func coversCanvas(_ c: APNGStructure.FrameControl) -> Bool {
            c.x == 0 && c.y == 0 && c.width == canvas.width && c.height == canvas.height
        }
        return apng.frames.indices.map { index in
            guard index > 0 else { return true }
            let previous = apng.frames[index - 1].control, control = apng.frames[index].control
            if previous.dispose == .background, coversCanvas(previous) { return true }
            return coversCanvas(control) && control.blend == .source && control.dispose != .previous
        }
    }
}
