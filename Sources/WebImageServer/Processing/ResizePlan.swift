import WebImage

/// The geometry of one request, as imgproxy computes it, before any pixel is touched: what to crop
/// from the source, the size to resize to, what to crop from the resized image, and where it sits on
/// an extended canvas. A pure function of the options and the source size, so the decoder can use
/// it to decode small (shrink-on-load) and the processor to run the steps.
///
/// The steps apply in this order: ``sourceCrop`` (in source pixels), resize to ``scaledSize``, flips,
/// ``resultCrop`` (in scaled pixels), then the ``canvas`` (extension, aspect-ratio extension and
/// padding) with the image at ``imageOrigin``.
public struct ResizePlan: Sendable, Equatable {
    /// The part of the source the `crop` option keeps, or nil for all of it.
    public var sourceCrop: PixelRect?
    /// The size the (cropped) source is resized to; at least 1×1.
    public var scaledSize: PixelSize
    /// The part of the scaled image kept (fill, fill-down, minimum sizes, force rounding), placed
    /// by the gravity, or nil for all of it.
    public var resultCrop: PixelRect?
    /// The canvas the image is placed on — extended to the target (`extend`), then to the target's
    /// aspect ratio (`extend_aspect_ratio`), then padded (`padding`, × the dpr used) — when it is
    /// larger than the image; nil otherwise.
    public var canvas: PixelSize?
    /// Where the image's top-left corner sits on ``canvas`` (zero without one).
    public var imageOrigin: PixelPoint
    /// The requested size in result pixels (`w`, `h` × dpr × zoom); 0 where the URL gives none.
    public var targetSize: PixelSize
    /// The device pixel ratio used: the URL's, capped so it never enlarges without `enlarge`.
    public var dprScale: Double

    /// The size of the result: the canvas, else the result crop, else the scaled size.
    public var resultSize: PixelSize { canvas ?? resultCrop?.size ?? scaledSize }

    /// The plan for `options` applied to a source of `sourceSize` pixels, measured after EXIF
    /// orientation and `rot` (the caller turns the image first). Sides below 1 count as 1; negative,
    /// zero or non-finite factors in `options` count as their defaults. With a `maxResultDimension`
    /// above 0 the whole plan is scaled down, as imgproxy does, until the result (canvas included)
    /// is at most that many pixels on its longer side.
    public init(options: ProcessingOptions, sourceSize: PixelSize, maxResultDimension: Int = 0) {
        let options = Self.sanitized(options)
        let limit = Int(Rounding.limit)
        let sourceW = min(max(1, sourceSize.width), limit), sourceH = min(max(1, sourceSize.height), limit)

        // The crop, in source pixels.
        let cropW = Self.minNonZero(Self.cropSide(sourceW, options.crop?.width ?? 0), sourceW)
        let cropH = Self.minNonZero(Self.cropSide(sourceH, options.crop?.height ?? 0), sourceH)
        if let crop = options.crop, cropW < sourceW || cropH < sourceH {
            let origin = GravityPlacement.origin(outer: (sourceW, sourceH), inner: (cropW, cropH),
                                                 gravity: crop.gravity ?? options.gravity, offsetScale: 1)
            sourceCrop = PixelRect(x: origin.x, y: origin.y, width: cropW, height: cropH)
        } else {
            sourceCrop = nil
        }

        // The resize, scaled down as a whole when the result would pass the dimension limit.
        var scale = ResizeScale(sourceWidth: cropW, sourceHeight: cropH, options: options).bounded()
        if maxResultDimension > 0 {
            let longest = Self.longestOutput(cropWidth: cropW, cropHeight: cropH, scale: scale, options: options)
            if longest > Double(maxResultDimension) {
                let down = Double(maxResultDimension) / longest
                // Never below one pixel.
                scale.width = max(scale.width * down, 1 / Double(cropW))
                scale.height = max(scale.height * down, 1 / Double(cropH))
                scale.dpr *= down
            }
        }
        let sizes = Sizes(cropWidth: cropW, cropHeight: cropH, scale: scale, options: options)
        dprScale = scale.dpr
        scaledSize = sizes.scaled
        targetSize = sizes.target

        // The crop to the result, in scaled pixels.
        let keepW = Self.minNonZero(sizes.keep.width, scaledSize.width)
        let keepH = Self.minNonZero(sizes.keep.height, scaledSize.height)
        if keepW < scaledSize.width || keepH < scaledSize.height {
            let origin = GravityPlacement.origin(outer: (scaledSize.width, scaledSize.height), inner: (keepW, keepH),
                                                 gravity: options.gravity, offsetScale: scale.dpr)
            resultCrop = PixelRect(x: origin.x, y: origin.y, width: keepW, height: keepH)
        } else {
            resultCrop = nil
        }

        // The canvas: the extension to the target, then to the target's aspect ratio, then the
        // padding, each placing what came before on a larger box of the background.
        let image = resultCrop?.size ?? scaledSize
        var box = image
        var origin = PixelPoint.zero
        func grow(to size: PixelSize, gravity: ProcessingOptions.Gravity) {
            guard size.width > box.width || size.height > box.height else { return }
            let outer = PixelSize(width: max(size.width, box.width), height: max(size.height, box.height))
            let at = GravityPlacement.origin(outer: (outer.width, outer.height), inner: (box.width, box.height),
                                             gravity: gravity, offsetScale: scale.dpr)
            origin = PixelPoint(x: origin.x + at.x, y: origin.y + at.y)
            box = outer
        }
        if options.extend.enabled { grow(to: targetSize, gravity: options.extend.gravity) }
        if options.extendAspectRatio.enabled, let size = Self.aspectSize(of: image, target: targetSize) {
            grow(to: size, gravity: options.extendAspectRatio.gravity)
        }
        var padding = options.padding.sides.map { $0 == 0 ? 0 : Rounding.even(Double($0) * scale.dpr) }
        if maxResultDimension > 0 {
            // The whole was scaled to the limit above; rounding may leave a pixel or two over,
            // taken off the bottom and right padding first.
            let overH = box.height + padding[0] + padding[2] - maxResultDimension
            let overW = box.width + padding[1] + padding[3] - maxResultDimension
            Self.trim(&padding, near: 2, far: 0, over: overH)
            Self.trim(&padding, near: 1, far: 3, over: overW)
        }
        let padded = PixelSize(width: box.width + padding[1] + padding[3], height: box.height + padding[0] + padding[2])
        if padded != image {
            canvas = padded
            imageOrigin = PixelPoint(x: origin.x + padding[3], y: origin.y + padding[0])
        } else {
            canvas = nil
            imageOrigin = .zero
        }
    }

    /// The size `image` is extended to for the target's aspect ratio (imgproxy's rounding), or nil
    /// when the target lacks a side or the image already has its ratio.
    private static func aspectSize(of image: PixelSize, target: PixelSize) -> PixelSize? {
        guard target.width > 0, target.height > 0 else { return nil }
        let ratioW = Double(target.width) / Double(image.width)
        let ratioH = Double(target.height) / Double(image.height)
        if ratioH > ratioW {
            return PixelSize(width: image.width,
                             height: Rounding.nearest(Double(image.width) * Double(target.height) / Double(target.width)))
        }
        if ratioW > ratioH {
            return PixelSize(width: Rounding.nearest(Double(image.height) * Double(target.width) / Double(target.height)),
                             height: image.height)
        }
        return nil
    }

    /// Takes up to `excess` pixels off `padding[near]`, then off `padding[far]`.
    private static func trim(_ padding: inout [Int], near: Int, far: Int, over excess: Int) {
        var excess = max(0, excess)
        for side in [near, far] where excess > 0 {
            let taken = min(padding[side], excess)
            padding[side] -= taken
            excess -= taken
        }
    }

    /// The sizes a scale gives: the scaled image, the target (`w`, `h` × dpr × zoom) and the part of
    /// the scaled image the result keeps (the target, or for fill-down without enlarge the largest
    /// area of the target's shape the scaled image has).
    private struct Sizes {
        var scaled: PixelSize
        var target: PixelSize
        var keep: PixelSize

        init(cropWidth: Int, cropHeight: Int, scale: ResizeScale, options: ProcessingOptions) {
            scaled = PixelSize(width: max(1, Rounding.nearest(Double(cropWidth) * scale.width)),
                               height: max(1, Rounding.nearest(Double(cropHeight) * scale.height)))
            target = PixelSize(width: Rounding.nearest(Double(options.width) * scale.dpr * options.zoomX),
                               height: Rounding.nearest(Double(options.height) * scale.dpr * options.zoomY))
            keep = target
            if options.resizingType == .fillDown && !options.enlarge {
                let ratioW = Double(target.width) / Double(scaled.width)
                let ratioH = Double(target.height) / Double(scaled.height)
                if ratioW > ratioH && ratioW > 1 {
                    keep = PixelSize(width: scaled.width, height: Rounding.nearest(
                        Double(scaled.width) * Double(target.height) / Double(target.width)))
                } else if ratioH > ratioW && ratioH > 1 {
                    keep = PixelSize(width: Rounding.nearest(
                        Double(scaled.height) * Double(target.width) / Double(target.height)), height: scaled.height)
                }
            }
        }

    }

    /// The longer side of the result a scale gives, unrounded: the scaled image cut to the target,
    /// extended out to the target (or else to its aspect ratio), plus the padding at the scale's dpr.
    private static func longestOutput(cropWidth: Int, cropHeight: Int, scale: ResizeScale,
                                      options: ProcessingOptions) -> Double {
        let scaledW = Double(cropWidth) * scale.width, scaledH = Double(cropHeight) * scale.height
        let targetW = Double(options.width) * scale.dpr * options.zoomX
        let targetH = Double(options.height) * scale.dpr * options.zoomY
        var width = options.width == 0 ? scaledW : min(scaledW, targetW)
        var height = options.height == 0 ? scaledH : min(scaledH, targetH)
        if options.extend.enabled {
            width = max(width, targetW)
            height = max(height, targetH)
        } else if options.extendAspectRatio.enabled, targetW > 0, targetH > 0 {
            if targetH / height > targetW / width {
                height = width * targetH / targetW
            } else {
                width = height * targetW / targetH
            }
        }
        let sides = options.padding.sides.map { Double($0) * scale.dpr }
        return max(width + sides[1] + sides[3], height + sides[0] + sides[2])
    }

    /// A crop side in pixels: 0 is the whole side, from 1 whole pixels (truncated), below 1 a
    /// fraction of the side (at least 1 pixel).
    static func cropSide(_ side: Int, _ crop: Double) -> Int {
        if crop == 0 { return 0 }
        if crop >= 1 { return Int(min(crop, Rounding.limit)) }
        return max(1, Rounding.nearest(Double(side) * crop))
    }

    /// `a`, or `b` when `a` is 0; otherwise the smaller.
    static func minNonZero(_ a: Int, _ b: Int) -> Int {
        a == 0 ? b : b == 0 ? a : min(a, b)
    }

    /// `options` with every number the geometry reads in range: sizes and paddings 0...2³¹−1, factors finite and
    /// positive (else 1), crop sides finite and not negative (else 0), offsets finite (else 0).
    static func sanitized(_ options: ProcessingOptions) -> ProcessingOptions {
        var options = options
        let limit = Int(Rounding.limit)
        func size(_ value: Int) -> Int { min(max(0, value), limit) }
        func factor(_ value: Double) -> Double { value.isFinite && value > 0 ? value : 1 }
        func side(_ value: Double) -> Double { value.isFinite && value > 0 ? value : 0 }
        func gravity(_ gravity: ProcessingOptions.Gravity) -> ProcessingOptions.Gravity {
            var gravity = gravity
            if !gravity.x.isFinite { gravity.x = 0 }
            if !gravity.y.isFinite { gravity.y = 0 }
            return gravity
        }
        options.width = size(options.width)
        options.height = size(options.height)
        options.minWidth = size(options.minWidth)
        options.minHeight = size(options.minHeight)
        options.zoomX = factor(options.zoomX)
        options.zoomY = factor(options.zoomY)
        options.dpr = factor(options.dpr)
        options.gravity = gravity(options.gravity)
        options.extend.gravity = gravity(options.extend.gravity)
        options.extendAspectRatio.gravity = gravity(options.extendAspectRatio.gravity)
        let sides = options.padding.sides.map(size)
        options.padding = ProcessingOptions.Padding(top: sides[0], right: sides[1], bottom: sides[2], left: sides[3])
        if var crop = options.crop {
            crop.width = side(crop.width)
            crop.height = side(crop.height)
            crop.gravity = crop.gravity.map(gravity)
            options.crop = crop
        }
        return options
    }
}
