import CAVIF

/// What an AVIF container says about showing its image, which libavif reports but does not
/// apply: the clean aperture (`clap`) first, then the rotation (`irot`) and the mirror (`imir`).
struct AVIFTransforms {
    /// The region of the stored image to show: the `clap` rectangle, or the whole image when
    /// there is none or it is invalid (as browsers ignore an invalid one).
    ///
    /// The rectangle is taken at any whole-pixel position, as libheif takes it: libavif 0.11
    /// also refuses one that starts on an odd row or column of a 4:2:0 or 4:2:2 image (its
    /// chroma planes cannot be cut there), but the crop here is made on RGB pixels.
    let crop: avifCropRect
    /// True when the crop starts on a whole chroma sample, so the YUV planes can be cut before
    /// they are converted (otherwise the whole image is converted, then cropped).
    let cropFitsChromaPlanes: Bool
    /// The rotation and mirror as the equal EXIF orientation.
    let orientation: EXIFOrientation

    /// The transforms of `image` (its container properties are known once the header is parsed).
    init(_ image: UnsafeMutablePointer<avifImage>) {
        let flags = image.pointee.transformFlags
        let whole = avifCropRect(x: 0, y: 0, width: image.pointee.width, height: image.pointee.height)
        var crop = whole
        var fitsChromaPlanes = true
        if flags & AVIF_TRANSFORM_CLAP.rawValue != 0 {
            var rect = avifCropRect()
            var clap = image.pointee.clap
            var diagnostics = avifDiagnostics()
            // 4:4:4 has no chroma alignment: the clap box's own rules (a whole-pixel rectangle
            // inside the image) are all that is checked.
            if avifCropRectConvertCleanApertureBox(&rect, &clap, image.pointee.width, image.pointee.height,
                                                   AVIF_PIXEL_FORMAT_YUV444, &diagnostics) != 0,
               rect.width > 0, rect.height > 0 {
                crop = rect
                var aligned = avifCropRect()
                fitsChromaPlanes = avifCropRectConvertCleanApertureBox(
                    &aligned, &clap, image.pointee.width, image.pointee.height,
                    image.pointee.yuvFormat, &diagnostics) != 0
            }
        }
        self.crop = crop
        cropFitsChromaPlanes = fitsChromaPlanes
        let turns = flags & AVIF_TRANSFORM_IROT.rawValue != 0 ? Int(image.pointee.irot.angle) : 0
        let mirror = flags & AVIF_TRANSFORM_IMIR.rawValue != 0 ? Int(image.pointee.imir.mode) : nil
        orientation = EXIFOrientation(quarterTurnsAnticlockwise: turns, thenMirror: mirror)
    }

    /// True when the crop is the whole stored image.
    func cropsNothing(_ image: UnsafeMutablePointer<avifImage>) -> Bool {
        crop.x == 0 && crop.y == 0 && crop.width == image.pointee.width && crop.height == image.pointee.height
    }

    /// The size as shown: the crop, turned upright.
    var displayedSize: PixelSize {
        orientation.turning(PixelSize(width: Int(crop.width), height: Int(crop.height)))
    }
}

extension EXIFOrientation {
    /// The orientation that equals HEIF's `irot` (`turns` quarter turns anticlockwise) followed
    /// by `imir` (mode 0 exchanges top and bottom, mode 1 left and right; `nil` for none).
    init(quarterTurnsAnticlockwise turns: Int, thenMirror mirror: Int?) {
        let byTurns: [(none: EXIFOrientation, leftRight: EXIFOrientation, topBottom: EXIFOrientation)] = [
            (.up, .upMirrored, .downMirrored),
            (.left, .rightMirrored, .leftMirrored),
            (.down, .downMirrored, .upMirrored),
            (.right, .leftMirrored, .rightMirrored),
        ]
        let row = byTurns[((turns % 4) + 4) % 4]
        switch mirror {
        case nil: self = row.none
        case 1?: self = row.leftRight
        default: self = row.topBottom
        }
    }
}
