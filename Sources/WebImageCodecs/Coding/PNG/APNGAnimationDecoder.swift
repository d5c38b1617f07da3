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
    private let keyframes: [Bool]
    private var composer: APNGComposer
    /// The frame the canvas is ready to draw next; nil when the canvas must be rebuilt.
    private var nextIndex: Int? = 0

    init(data: Data, apng: APNGStructure, options: DecodeOptions, color: ColorManagement.Plan,
         orientation: EXIFOrientation) {
        self.data = data
        self.apng = apng
        self.limits = options.limits
        self.color = color
        self.orientation = orientation
        storedTarget = DecodedOutput.storedTarget(apng.canvas, orientation: orientation, options: options,
                                                  frameCount: apng.frames.count)
        keyframes = Self.keyframes(apng)
        composer = APNGComposer(canvas: apng.canvas)
    }

    /// The frame's size once resized and turned upright.
    var frameSize: PixelSize {
        orientation.swapsDimensions ? PixelSize(width: storedTarget.height, height: storedTarget.width) : storedTarget
    }

    func decodeFrame(at index: Int) throws -> Bitmap {
        let keyframe = keyframes[...index].lastIndex(of: true) ?? 0
        var start = nextIndex ?? keyframe
        if start > index || start < keyframe || nextIndex == nil {
            composer = APNGComposer(canvas: apng.canvas)
            start = keyframe
        }
        nextIndex = nil  // until the frames below are all drawn
        var composed: Bitmap?
        try data.withUnsafeBytes { raw in
            let bytes = raw.bindMemory(to: UInt8.self)
            for frameIndex in start...index {
                let frame = apng.frames[frameIndex]
                let pixels = try APNGDecoder.decodeFrame(frame, index: frameIndex, of: apng, in: bytes,
                                                         limits: limits, color: color)
                composed = composer.draw(pixels, control: frame.control)
            }
        }
        nextIndex = index + 1
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
