/// Where a decoder that carries its canvas from frame to frame stands, and where it must start
/// to reach a frame: go on from the canvas it has when that is on the way, else restart at the
/// nearest frame before the target that needs no predecessor (a keyframe).
struct KeyframeCursor {
    /// For each frame, the nearest keyframe at or before it (frame 0 always is one).
    private let keyframeBefore: [Int]
    /// The frame the canvas is ready to draw next; nil when the canvas must be rebuilt.
    private var next: Int? = 0

    /// A cursor over frames whose keyframes `isKeyframe` marks, at the start of the animation.
    init(isKeyframe: [Bool]) {
        var last = 0
        keyframeBefore = isKeyframe.indices.map { index in
            if isKeyframe[index] { last = index }
            return last
        }
    }

    /// The frames to draw, in order, to reach `index`, and whether the canvas must be cleared
    /// before the first. Until ``reached(_:)`` the canvas counts as unusable, so a failed draw
    /// makes the next call restart.
    mutating func frames(toReach index: Int) -> (frames: ClosedRange<Int>, clearsCanvas: Bool) {
        let keyframe = keyframeBefore[index]
        let start = next.flatMap { (keyframe...index).contains($0) ? $0 : nil }
        next = nil
        return ((start ?? keyframe)...index, start == nil)
    }

    /// Records that the canvas now shows frame `index`.
    mutating func reached(_ index: Int) { next = index + 1 }
}
