import CTIFF

/// Finds the reduced-resolution copy of a TIFF's first image that best serves a thumbnail:
/// pyramid TIFFs keep them as further directories marked SubfileType "reduced image" (libvips,
/// GDAL overviews) or as SubIFDs of the first (libvips `--subifd`, DNG previews).
enum TIFFPyramid {
    /// Directories looked at, at most: a pyramid halves each level, so 32 covers any real one.
    static let maxDirectories = 32

    /// The smallest reduced image of `main` (the current directory) whose stored size covers
    /// `target` in both sides, has `main`'s shape (within rounding) and is within `limits`;
    /// nil when there is none. Leaves another directory current: select the answer before use.
    static func reducedImage(in file: TIFFFile, main: TIFFDirectory, covering target: PixelSize,
                             limits: DecodeLimits) -> TIFFDirectory? {
        var candidates: [TIFFDirectory] = []
        for offset in subIFDOffsets(file) where TIFFSetSubDirectory(file.tiff, offset) == 1 {
            if let directory = try? TIFFDirectory(file, at: .subIFD(offset)) { candidates.append(directory) }
        }
        if TIFFSetDirectory(file.tiff, 0) == 1 {
            var index: UInt32 = 1
            while index < UInt32(maxDirectories), TIFFReadDirectory(file.tiff) == 1 {
                if let directory = try? TIFFDirectory(file, at: .chained(index)) { candidates.append(directory) }
                index += 1
            }
        }
        // Anything a damaged later directory made libtiff say is not about the image decoded.
        file.messages.clear()
        let shape = max(main.size.width, main.size.height)
        return candidates.filter { candidate in
            let size = candidate.size
            return candidate.isReduced && size.area < main.size.area
                && size.width >= target.width && size.height >= target.height
                && abs(size.width * main.size.height - size.height * main.size.width) <= shape
                && (try? limits.check(size, format: .tiff)) != nil
        }.min { $0.size.area < $1.size.area }
    }

    /// The SubIFD offsets of the current directory (at most ``maxDirectories``).
    private static func subIFDOffsets(_ file: TIFFFile) -> [UInt64] {
        var count: UInt16 = 0
        var offsets: UnsafePointer<UInt64>?
        guard ctiff_get_u64_array(file.tiff, UInt32(TIFFTAG_SUBIFD), &count, &offsets) == 1, let offsets else { return [] }
        return Array(UnsafeBufferPointer(start: offsets, count: min(Int(count), maxDirectories)))
    }
}
