import WebImageCodecs

extension MemoryCache {
    /// Evicts least recently used entries until at most `1 - fraction` of the cost held now
    /// remains (a memory-pressure signal's share: 0.5 halves the cache). A fraction of 1 or more
    /// empties it as SDWebImage does on a memory warning: images still alive elsewhere stay
    /// findable through the weak cache when it is on. The limits stay as they are.
    public func shrink(by fraction: Double) {
        if fraction >= 1 {
            removeAll(keepingWeak: true)
        } else {
            trim(toCost: ShrinkFraction.remaining(of: totalCost, dropping: fraction))
        }
    }
}
