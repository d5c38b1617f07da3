extension ProcessingOptions {
    /// Where the watermark goes on the result (`watermark`'s position): one of the nine anchors,
    /// or tiled over the whole result.
    public enum WatermarkPosition: String, Sendable, Hashable, CaseIterable {
        case center = "ce", north = "no", south = "so", east = "ea", west = "we"
        case northEast = "noea", northWest = "nowe", southEast = "soea", southWest = "sowe"
        /// The watermark repeated over the whole result, one copy centred; the offsets are the
        /// space between copies.
        case replicate = "re"
    }

    /// The server's watermark image put over the result (`watermark` / `wm`), as imgproxy does.
    public struct Watermark: Sendable, Hashable {
        /// 0–1, multiplied by the server's base opacity; 0 puts no watermark.
        public var opacity: Double
        public var position: WatermarkPosition
        /// Offsets from the anchored edges (or, replicated, the space between copies): pixels × the
        /// dpr used when at least 1 in magnitude, fractions of the result's side below that.
        public var x: Double
        public var y: Double
        /// The watermark fitted in this fraction of the result's size (enlarged if need be); 0
        /// keeps its own size.
        public var scale: Double

        /// A watermark of the given settings; by default none (opacity 0), centred, at its own size.
        public init(opacity: Double = 0, position: WatermarkPosition = .center, x: Double = 0, y: Double = 0,
                    scale: Double = 0) {
            self.opacity = opacity
            self.position = position
            self.x = x
            self.y = y
            self.scale = scale
        }

        /// Whether a watermark is asked for.
        public var isEnabled: Bool { opacity > 0 }
    }
}
