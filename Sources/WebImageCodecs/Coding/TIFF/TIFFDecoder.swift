import Foundation

/// Decodes the first image of a TIFF with libtiff: its header checked against the limits before
/// any pixel memory is allocated, a reduced-resolution copy used for a thumbnail when the file
/// has one large enough, the pixels converted to RGBA (``TIFFPixels``), the profile applied, the
/// Orientation tag applied last.
enum TIFFDecoder {
    /// The header facts: the first image's size as shown (after its Orientation tag).
    static func info(_ bytes: UnsafeBufferPointer<UInt8>) throws -> ImageInfo {
        try TIFFFile.withFile(bytes, maxAllocation: TIFFFile.maxAllocation(for: .default)) { file in
            let main = try TIFFDirectory(file, at: .chained(0))
            let shown = main.orientation.turning(main.size)
            guard !shown.isEmpty else { throw WebImageError.badData("The TIFF header declares an empty image (\(shown)).") }
            return ImageInfo(format: .tiff, pixelSize: shown, orientation: main.orientation)
        }
    }

    /// Decodes `bytes` per `options`.
    static func decode(_ bytes: UnsafeBufferPointer<UInt8>, options: DecodeOptions) throws -> Image {
        try TIFFFile.withFile(bytes, maxAllocation: TIFFFile.maxAllocation(for: options.limits)) { file in
            let main = try TIFFDirectory(file, at: .chained(0))
            let shown = main.orientation.turning(main.size)
            guard !shown.isEmpty else { throw WebImageError.badData("The TIFF header declares an empty image (\(shown)).") }
            let target = options.targetSize(for: shown)
            let storedTarget = main.orientation.turning(target)
            var chosen = main
            if target != shown {
                // The walk over the directories leaves another one current.
                chosen = TIFFPyramid.reducedImage(in: file, main: main, covering: storedTarget, limits: options.limits) ?? main
                try chosen.select(in: file)
            }
            try options.limits.check(chosen.size, format: .tiff)
            try chosen.checkPlausible(file)
            let (bitmap, color) = try TIFFPixels.decode(file, chosen, icc: chosen.icc ?? main.icc, options: options)
            let shownBitmap = DecodedOutput.finish(bitmap, storedTarget: storedTarget, orientation: main.orientation,
                                                     filter: options.resamplingFilter)
            return Image(bitmap: shownBitmap, format: .tiff, scale: options.scaleFactor, decodeOptions: options,
                         colorProfile: color.profile)
        }
    }
}
