import Foundation
import WebImage

/// `format:best`'s search: the smallest encoding of a processed still image, over the candidate
/// formats, whose SSIM against that image (``StructuralSimilarity``, on luma composited over white,
/// and also over black when the image has alpha, the lower counting) reaches the target.
///
/// Lossless candidates (``BestFormatCandidates/lossless(flat:hasAlpha:)``) are encoded once. Each
/// lossy format is encoded at the highest quality first: one that misses the target there is out.
/// Otherwise a binary search over `[minQuality, maxQuality]` finds the lowest quality still
/// reaching it, stopping early when an encoding that misses is already no smaller than the best so
/// far (a higher quality would only be larger). The answer is the smallest encoding that reaches
/// the target. When none does, the image is encoded losslessly (WebP when accepted, else PNG),
/// which reaches any target: an answer is never below it. At most `maxEncodes` encodes are made
/// (at least 2), one of them kept for that lossless fallback unless a lossless candidate already
/// reached the target; the rest are shared out evenly among the lossy formats not yet tried.
struct AutoQualitySearch {
    /// Raised whenever the search (or the SSIM it measures with) chooses differently, so results
    /// chosen before are not served as its answers (it is part of ``ResultRecipe``).
    static let revision = 3

    let target: Double
    let minQuality: Int
    let maxQuality: Int
    let maxEncodes: Int
    /// Encodes the image in a format at a quality (1–100), or losslessly.
    let encode: (ImageFormat, _ quality: Int, _ lossless: Bool) throws -> Data
    /// Decodes an encoding back to pixels, for measuring.
    let decode: (Data) throws -> Bitmap

    /// The chosen encoding.
    struct Choice: Sendable {
        let data: Data
        let format: ImageFormat
        /// The quality it was encoded at; nil for a lossless encoding.
        let quality: Int?
        /// Its SSIM against the image.
        let similarity: Double
        /// Encodes the search made.
        let encodes: Int
    }

    private struct Candidate {
        let data: Data
        let format: ImageFormat
        let quality: Int?
        let similarity: Double
    }

    /// What the search has made so far.
    private struct Progress {
        var encodes = 0
        /// The smallest candidate reaching the target.
        var best: Candidate?
        /// The candidate that came closest to the target without reaching it.
        var closest: Candidate?

        mutating func consider(_ candidate: Candidate, target: Double) {
            if candidate.similarity >= target {
                if best.map({ candidate.data.count < $0.data.count }) ?? true { best = candidate }
            } else if closest.map({ candidate.similarity > $0.similarity }) ?? true {
                closest = candidate
            }
        }
    }

    /// The choice for `image` among `candidates`; nil when there was nothing to encode.
    func choose(_ image: Bitmap, candidates: BestFormatCandidates) throws -> Choice? {
        let hasAlpha = image.hasAlpha
        let backgrounds: [RGBA] = hasAlpha ? [.white, .black] : [.white]
        let references = backgrounds.map { LumaPlane(image, over: $0) }
        let similarity = { (data: Data) throws -> Double in
            let decoded = try decode(data)
            guard decoded.size == image.size else { return 0 }
            return zip(backgrounds, references).map { background, reference in
                StructuralSimilarity.index(LumaPlane(decoded, over: background), reference) ?? 0
            }.min() ?? 0
        }
        var progress = Progress()
        for entry in candidates.lossless(flat: Self.isFlat(image), hasAlpha: hasAlpha) where progress.encodes < maxEncodes {
            _ = try encoded(entry.format, quality: nil, &progress, similarity)
        }
        let lossy = candidates.lossy(hasAlpha: hasAlpha)
        let budget = maxEncodes - (progress.best == nil ? 1 : 0)
        for (index, format) in lossy.enumerated() {
            let share = (budget - progress.encodes) / (lossy.count - index)
            guard share > 0 else { continue }
            try search(format, encodes: share, &progress, similarity)
        }
        if progress.best == nil, progress.encodes < maxEncodes {
            _ = try encoded(candidates.webp ? .webp : .png, quality: nil, &progress, similarity)
        }
        guard let chosen = progress.best ?? progress.closest else { return nil }
        return Choice(data: chosen.data, format: chosen.format, quality: chosen.quality, similarity: chosen.similarity,
                      encodes: progress.encodes)
    }

    /// `format` encoded at `quality` (nil: losslessly), measured and considered.
    private func encoded(_ format: ImageFormat, quality: Int?, _ progress: inout Progress,
                         _ similarity: (Data) throws -> Double) throws -> Candidate {
        try WorkCancellation.checkCurrent()
        progress.encodes += 1
        let data = try encode(format, quality ?? 100, quality == nil)
        let candidate = Candidate(data: data, format: format, quality: quality, similarity: try similarity(data))
        progress.consider(candidate, target: target)
        return candidate
    }

    /// The binary search over one lossy format's quality, in at most `encodes` encodes.
    private func search(_ format: ImageFormat, encodes: Int, _ progress: inout Progress,
                        _ similarity: (Data) throws -> Double) throws {
        let highest = try encoded(format, quality: maxQuality, &progress, similarity)
        guard highest.similarity >= target else { return }
        var low = minQuality, high = maxQuality, made = 1
        while low < high, made < encodes {
            let quality = (low + high) / 2
            let candidate = try encoded(format, quality: quality, &progress, similarity)
            made += 1
            if candidate.similarity >= target {
                high = quality
            } else {
                // A higher quality would only be larger: no use when this is already no smaller.
                if let best = progress.best, candidate.data.count >= best.data.count { return }
                low = quality + 1
            }
        }
    }

    /// Whether `image` has at most 256 colours (alpha included): a graphic, not a photo.
    static func isFlat(_ image: Bitmap) -> Bool {
        image.withUnsafeBytes { bytes in
            var colours = Set<UInt32>()
            var previous: UInt32?
            let raw = UnsafeRawBufferPointer(bytes)
            for index in 0..<(image.width * image.height) {
                let colour = raw.loadUnaligned(fromByteOffset: index * 4, as: UInt32.self)
                if colour == previous { continue }
                previous = colour
                if colours.insert(colour).inserted, colours.count > 256 { return false }
            }
            return true
        }
    }
}
