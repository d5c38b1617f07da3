import CJXL
import Foundation
@testable import WebImageCodecs

/// JPEG XL files made at test time with libjxl's own encoder (the reference implementation), for
/// what cjxl cannot be told to write: orientations, exact 16-bit samples, grey, ICC profiles and
/// colour encodings, animations with chosen durations; plus the committed cjxl/djxl fixtures.
enum JXLFixtures {
    struct Failed: Error, CustomStringConvertible {
        let description: String
    }

    /// One image's samples: `channels` per pixel (1 grey, 2 grey+alpha, 3 RGB, 4 RGBA), 8 or 16 bits.
    struct Samples {
        var width: Int
        var height: Int
        var channels: Int
        var bits: Int = 8
        /// Interleaved samples, row by row (only the low byte is used at 8 bits).
        var values: [UInt16]

        /// The samples of an RGBA bitmap (alpha dropped when `alpha` is false).
        init(_ bitmap: Bitmap, alpha: Bool = true) {
            width = bitmap.width
            height = bitmap.height
            channels = alpha ? 4 : 3
            values = []
            values.reserveCapacity(width * height * channels)
            for i in stride(from: 0, to: bitmap.pixels.count, by: 4) {
                for c in 0..<channels { values.append(UInt16(bitmap.pixels[i + c])) }
            }
        }

        init(width: Int, height: Int, channels: Int, bits: Int, values: [UInt16]) {
            self.width = width
            self.height = height
            self.channels = channels
            self.bits = bits
            self.values = values
        }
    }

    /// How the file is written.
    struct Settings {
        /// Lossless (modular, the values kept exactly) or lossy at `distance` (XYB).
        var lossless = true
        var distance: Float = 1
        /// The EXIF-style orientation stored in the header (1 = upright).
        var orientation: UInt32 = 1
        /// An ICC profile to embed, instead of the colour encoding.
        var icc: Data?
        /// The colour encoding (default sRGB, or grey sRGB for 1–2 channels).
        var encoding: JxlColorEncoding?
        /// Write the ISO-BMFF container (`JXL ` box) rather than a bare codestream.
        var container = false
        /// Animation: ticks per second and loop count; each frame's duration in ticks.
        var ticksPerSecond: (numerator: UInt32, denominator: UInt32) = (1000, 1)
        var loops: UInt32 = 0
        var durations: [UInt32] = []
        /// Where each animation frame goes on the canvas and how it is blended (default: the
        /// whole canvas, replaced); a frame smaller than the canvas is written cropped.
        var layers: [Layer] = []
        var effort: Int64 = 3
    }

    /// A frame's place on the canvas and its blend mode. Every frame is kept in reference slot 1
    /// and blended over what that slot holds (a frame with a duration is kept only when it names
    /// a slot other than 0).
    struct Layer {
        var x: Int32 = 0
        var y: Int32 = 0
        var blend: JxlBlendMode = JXL_BLEND_REPLACE
    }

    /// Encodes `frames` (one for a still image) with `settings`.
    static func encode(_ frames: [Samples], _ settings: Settings = Settings()) throws -> Data {
        guard let first = frames.first, let encoder = JxlEncoderCreate(nil) else { throw Failed(description: "no encoder") }
        defer { JxlEncoderDestroy(encoder) }
        let alpha = first.channels == 2 || first.channels == 4
        var info = JxlBasicInfo()
        JxlEncoderInitBasicInfo(&info)
        info.xsize = UInt32(first.width)
        info.ysize = UInt32(first.height)
        info.bits_per_sample = UInt32(first.bits)
        info.num_color_channels = first.channels <= 2 ? 1 : 3
        info.num_extra_channels = alpha ? 1 : 0
        info.alpha_bits = alpha ? UInt32(first.bits) : 0
        info.uses_original_profile = settings.lossless ? 1 : 0
        info.orientation = JxlOrientation(rawValue: settings.orientation)
        let animated = frames.count > 1
        if animated {
            info.have_animation = 1
            info.animation.tps_numerator = settings.ticksPerSecond.numerator
            info.animation.tps_denominator = settings.ticksPerSecond.denominator
            info.animation.num_loops = settings.loops
        }
        try check(JxlEncoderUseContainer(encoder, settings.container ? 1 : 0), "container")
        try check(JxlEncoderSetBasicInfo(encoder, &info), "basic info")
        if let icc = settings.icc {
            try icc.withUnsafeBytes { raw in
                try check(JxlEncoderSetICCProfile(encoder, raw.bindMemory(to: UInt8.self).baseAddress, raw.count), "ICC")
            }
        } else {
            var encoding = settings.encoding ?? JxlColorEncoding()
            if settings.encoding == nil { JxlColorEncodingSetToSRGB(&encoding, first.channels <= 2 ? 1 : 0) }
            try check(JxlEncoderSetColorEncoding(encoder, &encoding), "colour encoding")
        }
        guard let options = JxlEncoderFrameSettingsCreate(encoder, nil) else { throw Failed(description: "no settings") }
        try check(JxlEncoderFrameSettingsSetOption(options, JXL_ENC_FRAME_SETTING_EFFORT, settings.effort), "effort")
        if settings.lossless {
            try check(JxlEncoderSetFrameLossless(options, 1), "lossless")
        } else {
            try check(JxlEncoderSetFrameDistance(options, settings.distance), "distance")
        }
        for (index, frame) in frames.enumerated() {
            if animated {
                var header = JxlFrameHeader()
                JxlEncoderInitFrameHeader(&header)
                header.duration = index < settings.durations.count ? settings.durations[index] : 100
                let layer = index < settings.layers.count ? settings.layers[index] : Layer()
                if frame.width != first.width || frame.height != first.height || layer.x != 0 || layer.y != 0 {
                    header.layer_info.have_crop = 1
                    header.layer_info.crop_x0 = layer.x
                    header.layer_info.crop_y0 = layer.y
                    header.layer_info.xsize = UInt32(frame.width)
                    header.layer_info.ysize = UInt32(frame.height)
                }
                header.layer_info.blend_info.blendmode = layer.blend
                header.layer_info.blend_info.source = 1
                header.layer_info.save_as_reference = 1
                try check(JxlEncoderSetFrameHeader(options, &header), "frame header")
            }
            var format = JxlPixelFormat(num_channels: UInt32(frame.channels),
                                        data_type: frame.bits == 16 ? JXL_TYPE_UINT16 : JXL_TYPE_UINT8,
                                        endianness: JXL_NATIVE_ENDIAN, align: 0)
            if frame.bits == 16 {
                try frame.values.withUnsafeBytes { raw in
                    try check(JxlEncoderAddImageFrame(options, &format, raw.baseAddress, raw.count), "frame \(index)")
                }
            } else {
                let bytes = frame.values.map { UInt8(truncatingIfNeeded: $0) }
                try bytes.withUnsafeBytes { raw in
                    try check(JxlEncoderAddImageFrame(options, &format, raw.baseAddress, raw.count), "frame \(index)")
                }
            }
        }
        JxlEncoderCloseInput(encoder)
        var out = [UInt8](repeating: 0, count: 1 << 16)
        var used = 0
        while true {
            let status = out.withUnsafeMutableBufferPointer { whole -> JxlEncoderStatus in
                var next: UnsafeMutablePointer<UInt8>? = whole.baseAddress! + used
                var available = whole.count - used
                let status = JxlEncoderProcessOutput(encoder, &next, &available)
                used = whole.count - available
                return status
            }
            if status == JXL_ENC_SUCCESS { return Data(out[..<used]) }
            guard status == JXL_ENC_NEED_MORE_OUTPUT else { throw Failed(description: "output \(JxlEncoderGetError(encoder))") }
            out += [UInt8](repeating: 0, count: out.count)
        }
    }

    /// A still RGBA (or RGB when opaque) file of `bitmap`.
    static func still(_ bitmap: Bitmap, _ settings: Settings = Settings()) throws -> Data {
        try encode([Samples(bitmap, alpha: bitmap.hasAlpha)], settings)
    }

    /// An animation of `bitmaps` (one frame each), each shown `durations[i]` ticks.
    static func animation(_ bitmaps: [Bitmap], durations: [UInt32], loops: UInt32 = 0,
                          ticksPerSecond: (UInt32, UInt32) = (1000, 1)) throws -> Data {
        var settings = Settings()
        settings.durations = durations
        settings.loops = loops
        settings.ticksPerSecond = ticksPerSecond
        return try encode(bitmaps.map { Samples($0) }, settings)
    }

    /// `count` distinct frames of `width`×`height`: a moving bar over a gradient, some alpha.
    static func movingBars(count: Int, width: Int = 48, height: Int = 32) -> [Bitmap] {
        (0..<count).map { index in
            Bitmap(width: width, height: height) { out in
                for y in 0..<height {
                    for x in 0..<width {
                        let i = (y * width + x) * 4
                        let inBar = (x / 6) == index % (width / 6)
                        out[i] = inBar ? 250 : UInt8(x * 5)
                        out[i + 1] = UInt8((index * 37 + y * 3) & 0xFF)
                        out[i + 2] = inBar ? 20 : 200
                        out[i + 3] = y < 4 ? 128 : 255
                    }
                }
            }
        }
    }

    /// The P3 colour encoding (as libjxl names it: DCI-P3 primaries, D65 white, sRGB curve).
    static var displayP3Encoding: JxlColorEncoding {
        var encoding = JxlColorEncoding()
        JxlColorEncodingSetToSRGB(&encoding, 0)
        encoding.primaries = JXL_PRIMARIES_P3
        return encoding
    }

    private static func check(_ status: JxlEncoderStatus, _ what: String) throws {
        guard status == JXL_ENC_SUCCESS else { throw Failed(description: "libjxl refused the \(what)") }
    }
}
