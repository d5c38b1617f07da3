/// What is left of a cache or pool after a memory-pressure signal drops a share of it.
package enum ShrinkFraction {
    /// `total × (1 − fraction)`, rounded down: `fraction` is clamped to [0, 1] and NaN drops
    /// nothing, so the result is always within 0…`total`.
    package static func remaining(of total: Int, dropping fraction: Double) -> Int {
        guard total > 0, fraction > 0 else { return max(0, total) }
        guard fraction < 1 else { return 0 }
        return min(total, Int(Double(total) * (1 - fraction)))
    }
}
