import CResample

extension Resampler {
    /// For each destination index along one axis: a run of consecutive source indices starting
    /// at `first`, `count` long, whose weights (summing to 1) start at `offsets` in `weights`.
    struct Taps {
        var first: [Int] = []
        var counts: [Int] = []
        var offsets: [Int] = []
        var weights: [Float] = []
        /// The source indices any tap reads.
        var span: Range<Int> = 0..<0

        /// Taps mapping the source span `[start, start + length)` of a `source`-long axis onto
        /// `count` destination pixels with `filter`. A kernel is stretched by the reduction factor
        /// when shrinking; near the ends it keeps the taps inside the axis, renormalised.
        init(source: Int, start: Double, length: Double, count: Int, filter: ResamplingFilter = .area) {
            first.reserveCapacity(count); counts.reserveCapacity(count); offsets.reserveCapacity(count)
            let scale = length / Double(count)
            for i in 0..<count {
                offsets.append(weights.count)
                switch filter {
                case .area:
                    if scale > 1 { appendArea(i, source: source, start: start, scale: scale) }
                    else { appendKernel(i, source: source, start: start, scale: scale, filter: .linear) }
                case .nearest:
                    let centre = start + (Double(i) + 0.5) * scale
                    first.append(Self.clamped(Int(centre.rounded(.down)), source)); counts.append(1); weights.append(1)
                default:
                    appendKernel(i, source: source, start: start, scale: scale, filter: filter)
                }
            }
            if let low = first.min() {
                span = low..<(zip(first, counts).map { $0 + $1 }.max() ?? low + 1)
            }
        }

        /// Destination pixel `i` as the mean of the source it covers, `[lo, hi)`.
        private mutating func appendArea(_ i: Int, source: Int, start: Double, scale: Double) {
            let lo = max(start + Double(i) * scale, 0)
            let hi = min(start + Double(i + 1) * scale, Double(source))
            var s = Self.clamped(Int(lo.rounded(.down)), source)
            let runStart = s
            var total = 0.0
            let base = weights.count
            while Double(s) < hi && s < source {
                let cover = max(min(hi, Double(s + 1)) - max(lo, Double(s)), 0)
                weights.append(Float(cover)); total += cover
                s += 1
            }
            if weights.count == base || total <= 1e-12 {
                weights.removeSubrange(base...); weights.append(1); total = 1
            }
            first.append(runStart); counts.append(weights.count - base)
            let norm = Float(1 / total)
            for k in base..<weights.count { weights[k] *= norm }
        }

        /// Destination pixel `i` as `filter`'s kernel centred on it, stretched by `scale` when
        /// that is above 1; source pixel centres sit at `s + 0.5`.
        private mutating func appendKernel(_ i: Int, source: Int, start: Double, scale: Double,
                                           filter: ResamplingFilter) {
            let stretch = max(scale, 1)
            let support = filter.radius * stretch
            let centre = start + (Double(i) + 0.5) * scale
            let lo = max(Int((centre - support + 0.5).rounded(.down)), 0)
            let hi = min(Int((centre + support + 0.5).rounded(.down)), source)
            var total = 0.0
            var kept: [Double] = []
            if lo < hi {
                kept.reserveCapacity(hi - lo)
                for s in lo..<hi {
                    let w = filter.weight((Double(s) + 0.5 - centre) / stretch)
                    kept.append(w); total += w
                }
            }
            // Zero weights at either end cost a multiply each for nothing.
            var from = 0, to = kept.count
            while from < to, kept[from] == 0 { from += 1 }
            while to > from, kept[to - 1] == 0 { to -= 1 }
            guard from < to, abs(total) > 1e-9 else {
                first.append(Self.clamped(Int(centre.rounded(.down)), source)); counts.append(1); weights.append(1)
                return
            }
            first.append(lo + from); counts.append(to - from)
            for k in from..<to { weights.append(Float(kept[k] / total)) }
        }

        /// The weights as a table of `width` (at least the largest count) per destination index,
        /// zeros after each index's own, every weight repeated `lanes` times.
        func paddedWeights(width: Int, lanes: Int) -> [Float] {
            var table = [Float](repeating: 0, count: counts.count * width * lanes)
            for index in counts.indices {
                let row = index * width * lanes
                for t in 0..<counts[index] {
                    let weight = weights[offsets[index] + t], at = row + t * lanes
                    for lane in 0..<lanes { table[at + lane] = weight }
                }
            }
            return table
        }

        /// The weights as fixed point with `WEBIMAGE_RESAMPLE_FIXED_BITS` fraction bits for
        /// CResample's opaque horizontal pass: `width` (even, at least the largest count) per
        /// destination index with zeros after its own, in pairs of taps, each pair one 32-bit
        /// value (the even tap's 16-bit weight in the low half) repeated four times. Each index's
        /// rounded weights keep its rounded sum. `nil` when a weight or the sum of a row's
        /// magnitudes does not fit the 16- and 32-bit sums.
        func pairedFixedWeights(width: Int) -> [Int32]? {
            precondition(width % 2 == 0 && width >= (counts.max() ?? 0), "pairs of taps for every index")
            let one = Float(1 << WEBIMAGE_RESAMPLE_FIXED_BITS)
            var table = [Int32](repeating: 0, count: counts.count * width * 2)
            var fixed = [Int](repeating: 0, count: width)
            for index in counts.indices {
                let count = counts[index], offset = offsets[index]
                var exact: Float = 0, total = 0, largest = 0
                for t in count..<width { fixed[t] = 0 }
                for t in 0..<count {
                    let scaled = (weights[offset + t] * one).rounded()
                    guard scaled.isFinite, abs(scaled) <= 32767 else { return nil }
                    fixed[t] = Int(scaled)
                    exact += weights[offset + t]
                    total += fixed[t]
                    if abs(fixed[t]) > abs(fixed[largest]) { largest = t }
                }
                let target = (exact * one).rounded()
                guard target.isFinite, abs(target) <= 32767 else { return nil }
                fixed[largest] += Int(target) - total
                let magnitude = fixed.reduce(0) { $0 + abs($1) }
                guard abs(fixed[largest]) <= 32767, magnitude <= 1 << 22 else { return nil }
                let row = index * width * 2
                for pair in 0..<(width / 2) {
                    let low = UInt32(UInt16(truncatingIfNeeded: fixed[2 * pair]))
                    let high = UInt32(UInt16(truncatingIfNeeded: fixed[2 * pair + 1]))
                    let value = Int32(bitPattern: low | high << 16)
                    for lane in 0..<4 { table[row + 4 * pair + lane] = value }
                }
            }
            return table
        }

        private static func clamped(_ index: Int, _ source: Int) -> Int { min(max(index, 0), source - 1) }

        func withTables<R>(_ body: (UnsafeBufferPointer<Int>, UnsafeBufferPointer<Int>,
                                    UnsafeBufferPointer<Int>, UnsafeBufferPointer<Float>) -> R) -> R {
            first.withUnsafeBufferPointer { f in
                counts.withUnsafeBufferPointer { c in
                    offsets.withUnsafeBufferPointer { o in
                        weights.withUnsafeBufferPointer { w in body(f, c, o, w) }
                    }
                }
            }
        }
    }
}
