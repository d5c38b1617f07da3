import Testing
import WebImage

/// Compares a lazily decoded animation with the eager decode of the same file.
enum LazyFrameChecks {
    /// `reads` frame indices below `frameCount` picked by `seed`: the same every run, with earlier
    /// frames asked for after later ones.
    static func randomFrames(_ frameCount: Int, reads: Int, seed: UInt64) -> [Int] {
        var random = RetryStrategyTests.SeededGenerator(state: seed)
        return (0..<reads).map { _ in Int.random(in: 0..<frameCount, using: &random) }
    }

    /// Frames `indices` of `lazy`, in that order, each equal to `eager`'s frame.
    static func expectSameFrames(_ lazy: Image, _ eager: Image, at indices: [Int],
                                 sourceLocation: SourceLocation = #_sourceLocation) throws {
        for index in indices {
            #expect(try lazy.frame(at: index).bitmap == eager.frame(at: index).bitmap, "frame \(index)",
                    sourceLocation: sourceLocation)
        }
    }
}
