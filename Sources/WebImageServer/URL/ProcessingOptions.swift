import WebImage

/// What one request asks the server to do with its source image: the options of an imgproxy URL,
/// in the order-independent form the processing pipeline reads.
///
/// Defaults are imgproxy's. The URL's option order never changes the pipeline's order; a later
/// option only overrides an earlier one.
public struct ProcessingOptions: Sendable, Hashable {
    /// How the image is fitted to the target size (`resizing_type` / `rt`).
    public enum ResizingType: String, Sendable, Hashable, CaseIterable {
        /// Keeps the aspect ratio; the result fits inside the target.
        case fit
        /// Keeps the aspect ratio; the result covers the target and is cropped to it.
        case fill
        /// Like `fill`, but never enlarges: a smaller source is cropped to the target's aspect ratio.
        case fillDown = "fill-down"
        /// Ignores the aspect ratio: the result has exactly the target size.
        case force
        /// `fill` when the source and target have the same orientation, else `fit`.
        case auto
    }

    /// Where a crop or an extension is anchored (`gravity` / `g`).
    public enum GravityType: String, Sendable, Hashable, CaseIterable {
        case north = "no", south = "so", east = "ea", west = "we"
        case northEast = "noea", northWest = "nowe", southEast = "soea", southWest = "sowe"
        case center = "ce"
        /// A focus point given as fractions of the width and height (`fp:x:y`).
        case focusPoint = "fp"
        /// Content-aware placement (`sm`): the window holding the most detail, colour and skin
        /// tones (`SmartCrop`).
        case smart = "sm"
    }

    /// An anchor with its offsets: pixels when at least 1, fractions of the image when below 1
    /// (for ``GravityType/focusPoint``, the point's position as fractions).
    public struct Gravity: Sendable, Hashable {
        public var type: GravityType
        public var x: Double
        public var y: Double

        public init(_ type: GravityType = .center, x: Double = 0, y: Double = 0) {
            self.type = type
            self.x = x
            self.y = y
        }

        /// The default anchor: the centre, no offset.
        public static let center = Gravity()
    }

    /// A crop applied before resizing (`crop` / `c`): sizes of at least 1 are pixels, below 1
    /// fractions of the image, 0 the whole side. Without a gravity, the request's ``gravity`` is used.
    public struct Crop: Sendable, Hashable {
        public var width: Double
        public var height: Double
        public var gravity: Gravity?

        public init(width: Double, height: Double, gravity: Gravity? = nil) {
            self.width = width
            self.height = height
            self.gravity = gravity
        }
    }

    /// Padding the result out to the target size (`extend` / `ex`).
    public struct Extend: Sendable, Hashable {
        public var enabled: Bool
        public var gravity: Gravity

        public init(enabled: Bool = false, gravity: Gravity = .center) {
            self.enabled = enabled
            self.gravity = gravity
        }
    }

    /// Space added around the result (`padding` / `pd`), in pixels before the dpr scales them.
    /// A side is nil until an option sets it, and counts as 0 then; imgproxy's shorthand copies a
    /// side only from one that was set.
    public struct Padding: Sendable, Hashable {
        /// Pixels above the image.
        public var top: Int?
        /// Pixels right of the image.
        public var right: Int?
        /// Pixels below the image.
        public var bottom: Int?
        /// Pixels left of the image.
        public var left: Int?

        /// Padding of the given sides; nil sides are unset.
        public init(top: Int? = nil, right: Int? = nil, bottom: Int? = nil, left: Int? = nil) {
            self.top = top
            self.right = right
            self.bottom = bottom
            self.left = left
        }

        /// The sides in CSS order (top, right, bottom, left), unset ones as 0.
        public var sides: [Int] { [top ?? 0, right ?? 0, bottom ?? 0, left ?? 0] }

        /// Whether any side adds space.
        public var isEnabled: Bool { sides.contains { $0 != 0 } }
    }

    public var resizingType: ResizingType = .fit
    /// The filter the image is resized with (`resizing_algorithm` / `ra`); imgproxy's default,
    /// lanczos3.
    public var resizingAlgorithm = ResamplingFilter.lanczos3
    /// The target width; 0 derives it from the height (or keeps the source's).
    public var width = 0
    /// The target height; 0 derives it from the width (or keeps the source's).
    public var height = 0
    public var minWidth = 0
    public var minHeight = 0
    public var zoomX = 1.0
    public var zoomY = 1.0
    /// Device pixel ratio: scales the target size (never past the source without ``enlarge``).
    public var dpr = 1.0
    /// Allows results larger than the source.
    public var enlarge = false
    public var extend = Extend()
    /// Extending the result's canvas to the target's aspect ratio (`extend_aspect_ratio` / `exar`),
    /// with its anchor; only when both a width and a height are asked for.
    public var extendAspectRatio = Extend()
    /// Space added around the result after every other step (`padding` / `pd`).
    public var padding = Padding()
    public var gravity = Gravity.center
    public var crop: Crop?
    /// Applies the EXIF orientation.
    public var autoRotate = true
    /// Clockwise rotation in degrees after the EXIF orientation: 0, 90, 180 or 270.
    public var rotate = 0
    public var flipHorizontal = false
    public var flipVertical = false
    /// The colour transparent areas are flattened onto; `nil` keeps transparency where the
    /// output format has it.
    public var background: RGBA?
    /// Gaussian blur sigma; 0 is off.
    public var blur = 0.0
    /// Sharpen sigma; 0 is off.
    public var sharpen = 0.0
    /// The side of the square blocks the result is pixelated into (`pixelate` / `pix`); 1 or less is off.
    public var pixelate = 1
    /// The server's watermark over the result (`watermark` / `wm`); off unless its opacity is above 0.
    public var watermark = Watermark()
    /// `raw`: the source's bytes answered as they are, unprocessed; of the other options only the
    /// file name, attachment, expiry and the source size limit have an effect.
    public var raw = false
    /// Output quality 1–100; 0 takes ``formatQuality`` or the server's default.
    public var quality = 0
    /// Per-format quality (`format_quality` / `fq`).
    public var formatQuality: [ImageFormat: Int] = [:]
    /// The output format; `nil` picks one from the source and the request's `Accept`.
    public var format: ImageFormat?
    /// `format:best` (`f:best`, or the extension `.best`): the server encodes the result in each
    /// format the request's `Accept` allows, at the lowest quality that keeps it perceptually
    /// close to the processed image, and serves the smallest; ``format`` is nil then.
    public var bestFormat = false
    /// No effect on the result; changes the URL (and so the cache key).
    public var cacheBuster: String?
    /// Unix time after which the URL is refused (`expires` / `exp`).
    public var expires: Int64?
    /// The file name in `Content-Disposition`, without extension.
    public var filename: String?
    /// `Content-Disposition: attachment` instead of `inline`.
    public var returnAttachment = false
    /// Removes metadata from the result.
    public var stripMetadata = true
    /// A per-request source resolution limit in megapixels (only in signed URLs).
    public var maxSourceResolution: Double?
    /// A per-request source size limit in bytes (only in signed URLs): it tightens the server's
    /// limit, never loosens it; 0 sets none.
    public var maxSourceFileSize: Int?
    /// Border removal before every other step (`trim` / `t`); nil is off.
    public var trim: Trim?
    /// The largest encoded result in bytes (`max_bytes` / `mb`): a JPEG, WebP or AVIF result that
    /// is larger is encoded again at lower qualities; 0 is no limit.
    public var maxBytes = 0
    /// Keeps the EXIF Copyright and Artist fields when metadata is stripped (`keep_copyright` /
    /// `kcr`); nil takes the server's default.
    public var keepCopyright: Bool?
    /// Converts the result to sRGB and drops the source's colour profile (`strip_color_profile` /
    /// `scp`); false keeps the source's colours with its profile embedded where the output format
    /// can carry one; nil takes the server's default.
    public var stripColorProfile: Bool?

    public init() {}
}

extension ProcessingOptions {
    /// Removing borders of one colour (`trim` / `t`), as imgproxy does before resizing.
    public struct Trim: Sendable, Hashable {
        /// How far a channel may differ from the border colour (0–255 scale) and still be border.
        public var threshold: Double
        /// The border colour; nil takes the image's top-left pixel.
        public var color: RGBA?
        /// Removes as much from the left as from the right: the smaller of the two margins.
        public var equalHorizontal: Bool
        /// Removes as much from the top as from the bottom: the smaller of the two margins.
        public var equalVertical: Bool

        /// Trimming borders within `threshold` of `color` (the top-left pixel when nil).
        public init(threshold: Double, color: RGBA? = nil, equalHorizontal: Bool = false, equalVertical: Bool = false) {
            self.threshold = threshold
            self.color = color
            self.equalHorizontal = equalHorizontal
            self.equalVertical = equalVertical
        }
    }
}
