/// imgproxy's scale factors for one resize: how much the (cropped) source shrinks on each axis and
/// the device pixel ratio actually used, from the resizing type, target, zoom, enlarge, dpr and
/// minimum sizes.
struct ResizeScale: Equatable {
    /// Result pixels per source pixel, horizontally and vertically.
    var width: Double
    var height: Double
    /// The dpr after capping (without `enlarge` it never makes the result larger than the source).
    var dpr: Double

    /// The scale of a `sourceWidth` × `sourceHeight` image (after orientation, rotation and crop)
    /// under `options`, whose numbers are already sane (see ``ResizePlan``).
    init(sourceWidth: Int, sourceHeight: Int, options: ProcessingOptions) {
        let sourceW = Double(sourceWidth), sourceH = Double(sourceHeight)
        let targetW = options.width == 0 ? sourceW : Double(options.width)
        let targetH = options.height == 0 ? sourceH : Double(options.height)
        var shrinkW = targetW == sourceW ? 1 : sourceW / targetW
        var shrinkH = targetH == sourceH ? 1 : sourceH / targetH

        if shrinkW != 1 || shrinkH != 1 {
            var type = options.resizingType
            if type == .auto {
                // Same orientation (a square counts as landscape) fills, otherwise fits.
                type = (sourceW - sourceH >= 0) == (targetW - targetH >= 0) ? .fill : .fit
            }
            if options.width == 0 && type != .force {
                shrinkW = shrinkH
            } else if options.height == 0 && type != .force {
                shrinkH = shrinkW
            } else if type == .fit {
                shrinkW = max(shrinkW, shrinkH)
                shrinkH = shrinkW
            } else if type == .fill || type == .fillDown {
                shrinkW = min(shrinkW, shrinkH)
                shrinkH = shrinkW
            }
        }

        shrinkW /= options.zoomX
        shrinkH /= options.zoomY

        var dpr = options.dpr
        if !options.enlarge {
            let smallest = min(shrinkW, shrinkH)
            if smallest < 1 {
                // The source is smaller than the target: scale to 1 instead. A dpr below 1 would
                // shrink it further from the target, so it is compensated (not when extending,
                // which keeps the composition the same at every dpr).
                shrinkW /= smallest
                shrinkH /= smallest
                if !options.extend.enabled { dpr /= smallest }
            }
            // No more dpr than the source has pixels for.
            dpr = min(dpr, min(shrinkW, shrinkH))
        }

        if options.minWidth > 0 {
            let needed = sourceW / Double(options.minWidth)
            if needed < shrinkW {
                shrinkH /= shrinkW / needed
                shrinkW = needed
            }
        }
        if options.minHeight > 0 {
            let needed = sourceH / Double(options.minHeight)
            if needed < shrinkH {
                shrinkW /= shrinkH / needed
                shrinkH = needed
            }
        }

        shrinkW /= dpr
        shrinkH /= dpr
        // Never below one pixel.
        shrinkW = min(shrinkW, sourceW)
        shrinkH = min(shrinkH, sourceH)

        width = 1 / shrinkW
        height = 1 / shrinkH
        self.dpr = dpr
    }

    /// The factors kept within 2⁻³¹…2³¹ (the most a side can shrink or grow), so that sizes
    /// computed from them stay finite: factors past the top are divided down together, keeping
    /// their ratios; one that came out infinite or undefined is clamped alone (undefined counts as 1).
    func bounded() -> ResizeScale {
        var scale = self
        let largest = max(width, height, dpr)
        if largest.isFinite, largest > Rounding.limit {
            let factor = largest / Rounding.limit
            scale.width /= factor
            scale.height /= factor
            scale.dpr /= factor
        }
        func bound(_ value: Double) -> Double {
            value.isNaN ? 1 : min(max(value, 1 / Rounding.limit), Rounding.limit)
        }
        scale.width = bound(scale.width)
        scale.height = bound(scale.height)
        scale.dpr = bound(scale.dpr)
        return scale
    }
}
